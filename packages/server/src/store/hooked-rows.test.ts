import { describe, expect, it } from 'vitest';
import { backends } from '../testing/stores.js';
import { findIdenticalModelCall, findModelRowByCallId } from './hooked-rows.js';
import { planningReader } from './query-plan.js';

/**
 * The lookups every call of a hooked session (or gateway, or framework
 * adapter) makes find their row through an index, not by walking the run's
 * rows: a call in a turn's thousandth round costs what one in its first does.
 * Read from SQLite's own query plan of the statement the repository sends.
 */

const sqlite = (await backends()).find((backend) => backend.name === 'sqlite');

describe('hooked call lookups on SQLite', () => {
  it('use tasks_by_call_id and tasks_open_by_tool', async () => {
    if (!sqlite) throw new Error('no SQLite backend');
    const { store, dispose } = await sqlite.open();
    try {
      const { reader, plans } = planningReader(store);
      const planOf = async (): Promise<string> => (await plans()).at(-1) ?? '';

      await findModelRowByCallId(reader, 'run_1', 'toolu_1');
      expect(await planOf()).toMatch(
        /USING INDEX tasks_by_call_id \(run_id=\? AND tool_call_id=\?\)/,
      );

      for (const states of [
        ['runnable', 'needs_approval'],
        ['claimed', 'needs_approval'],
      ] as const) {
        await findIdenticalModelCall(reader, 'run_1', {
          toolName: 'Bash',
          toolInputJson: '{"command":"ls"}',
          states,
        });
        expect(await planOf()).toMatch(
          /USING INDEX tasks_open_by_tool \(run_id=\? AND tool_name=\?\)/,
        );
      }
    } finally {
      await dispose();
    }
  });
});
