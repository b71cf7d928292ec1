import { describe, expect, it } from 'vitest';
import { backends } from '../testing/stores.js';
import { planningReader } from './query-plan.js';
import { pageOpenDecisions } from './tasks.js';

/**
 * A page of the inbox and its count read the index of waiting rows
 * (tasks_waiting_by_workspace) in page order, never sorting every waiting
 * row of the workspace: a page costs the same at 10 waiting as at 10,000.
 * Read from SQLite's own query plan of the statements the repository sends.
 */

const sqlite = (await backends()).find((backend) => backend.name === 'sqlite');

describe('the waiting page on SQLite', () => {
  it('reads tasks_waiting_by_workspace in order, first page or after a cursor, newest or oldest first', async () => {
    if (!sqlite) throw new Error('no SQLite backend');
    const { store, dispose } = await sqlite.open();
    try {
      const { reader, plans } = planningReader(store);
      const cursor = { createdAt: 1_000, runId: 'run_1', key: 't1' };
      for (const order of ['newest', 'oldest'] as const) {
        for (const after of [undefined, cursor]) {
          await pageOpenDecisions(reader, 'ws_1', { limit: 100, order, after });
          const [page, count] = await plans();
          expect(page).toMatch(/USING INDEX tasks_waiting_by_workspace \(workspace_id=\?/);
          expect(page).not.toMatch(/TEMP B-TREE/);
          expect(count).toMatch(
            /USING (COVERING )?INDEX tasks_waiting_by_workspace \(workspace_id=\?\)/,
          );
        }
      }
    } finally {
      await dispose();
    }
  });
});
