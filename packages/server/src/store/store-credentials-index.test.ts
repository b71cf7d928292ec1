import { describe, expect, it } from 'vitest';
import { backends } from '../testing/stores.js';
import { memberCredentialStates, principalRoster } from './principal-roster.js';
import { planningReader } from './query-plan.js';

/**
 * The reads of a workspace's credentials on the path of every decision (its
 * principal roster, the member credentials a policy checks) find them
 * through credentials_by_workspace, on both engines: a decision costs the
 * same on a kernel of one workspace as on one of ten thousand. Read from each
 * engine's own query plan of the statements the repository sends.
 */

const usesIndex: Record<string, RegExp> = {
  sqlite: /USING (COVERING )?INDEX credentials_by_workspace \(workspace_id=\?\)/,
  postgres:
    /Index Scan using credentials_by_workspace|Bitmap Index Scan on credentials_by_workspace/,
};

describe.each(await backends())('credentials by workspace on $name', (backend) => {
  it.skipIf(backend.skip !== null)(
    'the roster and the member credentials read credentials_by_workspace',
    async () => {
      const { store, dispose } = await backend.open();
      try {
        const { reader, plans } = planningReader(store);
        await principalRoster(reader, 'ws_1');
        await memberCredentialStates(reader, 'ws_1');
        const [roster, members] = await plans();
        expect(roster).toMatch(usesIndex[backend.name]!);
        expect(members).toMatch(usesIndex[backend.name]!);
      } finally {
        await dispose();
      }
    },
  );
});
