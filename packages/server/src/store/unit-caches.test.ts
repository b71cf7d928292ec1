import { describe, expect, it } from 'vitest';
import { backends, freshStorePerTest } from '../testing/stores.js';
import { createWorkspace } from './accounts.js';
import { withAdvisoryLock } from './advisory-lock.js';
import { insertRunRow, lockRunRow, writeRunAtCommit } from './run-writes.js';
import type { RunTable, TaskTable } from './schema.js';
import { settlementRows } from './settlement-rows.js';
import type { Store } from './store.js';
import { cancelRunRows, insertTask, writeTaskMove } from './task-moves.js';

/**
 * What the repositories of store/ keep per unit of work (a fresh run's rows,
 * a run's columns as read) stays in step with the writes of the unit on its
 * own: the kernel only calls the repositories. Each answer is compared with
 * what the store holds, on both backends.
 */

const all = await backends();
const NOW = 1_000_000;

function runRow(id: string, workspaceId: string): RunTable {
  return {
    id,
    workspace_id: workspaceId,
    state: 'running',
    phase: 'tools',
    approval_mode: 'ask',
    approval_rules: '[]',
    tool_aliases: '{}',
    provider: '{}',
    input: '{}',
    on_failure: 'hold',
    round: 1,
    task_counter: 3,
    created_by: 'test',
    created_at: NOW,
    updated_at: NOW,
  } as RunTable;
}

function taskRow(run: RunTable, key: string, fields: Partial<TaskTable>): TaskTable {
  return {
    workspace_id: run.workspace_id,
    run_id: run.id,
    key,
    round: 1,
    origin: 'model',
    kind: 'tool',
    state: 'runnable',
    tool_name: 'bash',
    resolved_tool_name: 'bash',
    tool_input: '{}',
    on_failure: 'hold',
    tool_call_id: null,
    effect_profile: null,
    decision: null,
    addressee: null,
    claim_id: null,
    result: null,
    error_code: null,
    error_detail: null,
    decided_by: null,
    prompt: null,
    options: null,
    multi: null,
    resolution_token_hash: null,
    appended_by: null,
    hook_source: null,
    deadline_at: null,
    lease_until: null,
    attempts: 0,
    created_at: NOW,
    updated_at: NOW,
    ...fields,
  } as TaskTable;
}

/** The settle rows as (key, state) pairs. */
const brief = (rows: readonly { key: string; state: string }[]) =>
  rows.map((row) => `${row.key}:${row.state}`);

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`unit-of-work caches of store/ (${backend.name})`, () => {
    const open = freshStorePerTest(backend);

    async function plantedRun(store: Store) {
      const ws = await createWorkspace(store, 'w');
      const run = runRow('run_1', ws.id);
      const rows = [
        taskRow(run, 't1', { state: 'needs_approval' }),
        taskRow(run, 't2', { state: 'succeeded' }),
        taskRow(run, 't3', { state: 'failed', error_code: 'tool_failed', round: 0 }),
      ];
      return { run, rows };
    }

    it("answers a fresh run's settle rows as the store holds them", async () => {
      const store = await open();
      const { run, rows } = await plantedRun(store);
      const seen = await store.transaction(async (tx) => {
        await insertRunRow(tx, run);
        for (const row of rows) await insertTask(tx, row);
        return brief(await settlementRows(tx, run));
      });
      expect(seen).toEqual(['t1:needs_approval', 't2:succeeded', 't3:failed']);
      const again = await store.transaction(async (tx) => brief(await settlementRows(tx, run)));
      expect(again).toEqual(seen);
    });

    it("reads the store again once a move or a cancel changed a fresh run's rows", async () => {
      const store = await open();
      const { run, rows } = await plantedRun(store);
      const seen = await store.transaction(async (tx) => {
        await insertRunRow(tx, run);
        for (const row of rows) await insertTask(tx, row);
        const moved = await writeTaskMove(tx, {
          verb: 'approve',
          runId: run.id,
          key: 't1',
          change: { state: 'runnable', updated_at: tx.now },
          from: ['needs_approval'],
          kinds: [],
        });
        const afterMove = brief(await settlementRows(tx, run));
        const canceled = await cancelRunRows(tx, {
          runId: run.id,
          unstarted: ['runnable'],
          claimedKinds: ['hook'],
          principal: 'test',
        });
        return {
          moved: moved?.state,
          afterMove,
          canceled,
          afterCancel: brief(await settlementRows(tx, run)),
        };
      });
      expect(seen).toEqual({
        moved: 'runnable',
        afterMove: ['t1:runnable', 't2:succeeded', 't3:failed'],
        canceled: ['t1'],
        afterCancel: ['t1:canceled', 't2:succeeded', 't3:failed'],
      });
    });

    it('writes a run changed in a unit once, at its end, and only when a column changed', async () => {
      const store = await open();
      const { run } = await plantedRun(store);
      await store.transaction((tx) => insertRunRow(tx, run));
      await store.transaction(async (tx) => {
        const locked = (await lockRunRow(tx, run.workspace_id, run.id))!;
        locked.phase = 'model';
        writeRunAtCommit(tx, locked);
        locked.round = 2;
        writeRunAtCommit(tx, locked);
      });
      const stored = await store.transaction((tx) => lockRunRow(tx, run.workspace_id, run.id));
      expect([stored?.phase, stored?.round]).toEqual(['model', 2]);
    });

    it('lets one holder of an advisory lock work at a time (PostgreSQL), and runs work on SQLite', async () => {
      const store = await open();
      const order: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const first = withAdvisoryLock(store, 4_820_999, async () => {
        order.push('first in');
        await held;
        order.push('first out');
        return 1;
      });
      while (!order.includes('first in')) await new Promise((resolve) => setTimeout(resolve, 5));
      const second = withAdvisoryLock(store, 4_820_999, async () => {
        order.push('second in');
        return 2;
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      release();
      expect(await Promise.all([first, second])).toEqual([1, 2]);
      expect(order).toEqual(
        backend.name === 'postgres'
          ? ['first in', 'first out', 'second in']
          : ['first in', 'second in', 'first out'],
      );
    });
  });
}
