import { describe, expect, it } from 'vitest';
import { backends } from '../testing/stores.js';
import { planningReader } from './query-plan.js';
import { claimCandidates, isAgentsOwnCall } from './task-inbox.js';

const sqlite = (await backends()).find((backend) => backend.name === 'sqlite');

/**
 * A claim's read of its candidates costs index probes however many rows
 * claims hold back: the runnable rows by workspace and age, a sequential
 * tool's lock and its holder by key, a hooked session's turn by its run.
 * Read from SQLite's own query plan of the statement the repository sends.
 */
describe('claim candidates on SQLite', () => {
  it('read through indexes, whatever the filters and wherever the walk is', async () => {
    if (!sqlite) throw new Error('no SQLite backend');
    const { store, dispose } = await sqlite.open();
    try {
      const { reader, plans } = planningReader(store);
      const after = { createdAt: 1, runId: 'run_1', key: 't9' };
      for (const owner of [
        { workspaceId: 'ws_1', applicationId: null },
        { workspaceId: 'ws_1', applicationId: 'app_1', toolNames: ['deploy', 'bash'] },
      ]) {
        for (const cursor of [undefined, after]) {
          await claimCandidates(reader, owner, cursor);
          const plan = (await plans()).at(-1) ?? '';
          expect(plan).toMatch(/SEARCH tasks USING INDEX tasks_runnable \(workspace_id=\?/);
          // Past a held sequential tool: its lock by key, its holder by the row's key.
          expect(plan).toMatch(/claim_locks USING INDEX \S+ \(workspace_id=\? AND lock_key=\?\)/);
          expect(plan).toMatch(/holder USING INDEX \S+ \(run_id=\? AND key=\?\)/);
          // A hooked session's turn by its run's key (runs.loop), no walk of the conversation.
          expect(plan).toMatch(/own_run USING INDEX \S+ \(id=\?\)/);
          expect(plan).not.toMatch(/^SCAN /m);
        }
      }
      await isAgentsOwnCall(reader, { workspaceId: 'ws_1', runId: 'run_1', key: 't1' });
      const own = (await plans()).at(-1) ?? '';
      expect(own).toMatch(/SEARCH tasks USING INDEX \S+ \(run_id=\? AND key=\?\)/);
      expect(own).not.toMatch(/^SCAN /m);
    } finally {
      await dispose();
    }
  });
});
