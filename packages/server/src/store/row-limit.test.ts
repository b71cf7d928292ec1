import { describe, expect, it } from 'vitest';
import { backends, freshStorePerTest } from '../testing/stores.js';
import { createWorkspace, listWorkspaces } from './accounts.js';
import { rowLimit } from './row-limit.js';
import { SQL } from './sql-handle.js';

const all = await backends();

describe('rowLimit', () => {
  it('refuses a count that is not a non-negative safe integer (it is written into SQL text)', () => {
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
      expect(() => rowLimit(bad)).toThrow(RangeError);
    }
  });
});

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`rowLimit on ${backend.name}`, () => {
    const open = freshStorePerTest(backend);

    it('writes the count into the statement, binds nothing for it, and limits the rows', async () => {
      const store = await open();
      for (const name of ['a', 'b', 'c']) await createWorkspace(store, name);
      const query = store[SQL].db.selectFrom('workspaces').select('id').limit(rowLimit(2));
      const compiled = query.compile();
      expect(compiled.sql).toMatch(/ limit 2$/);
      expect(compiled.parameters).toEqual([]);
      expect(await query.execute()).toHaveLength(2);
      expect(await listWorkspaces(store)).toHaveLength(3);
    });
  });
}
