import type { HookedAnswer } from '@airlock/core';
import { AirlockError } from '../../errors.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import { findTask, findTaskBySource } from '../../store/tasks.js';
import type { KernelContext } from '../context.js';
import { lockRun } from '../machines/run-state.js';
import { hookEventOf, hookOutcome } from './hooks.js';
import { beforeModel } from './lifecycle.js';

/*
 * A hooked session's prompt (turn_start): the turn's `turn_start` hook
 * (spec 002) runs before anything else of the turn.
 */

/** turn_start: the turn's run, and its `turn_start` hook before anything else. */
export async function turnStart(
  ctx: KernelContext,
  run: RunTable,
  taskKey: string | undefined,
): Promise<{ row: TaskTable | null; run: RunTable }> {
  return ctx.store.transaction(async (tx) => {
    const locked = await lockRun(tx, run.workspace_id, run.id);
    if (locked.state !== 'running') return { row: null, run: locked };
    if (taskKey === undefined && locked.round === 0 && locked.continuations === 0) {
      if (locked.phase === 'model') await beforeModel(ctx, tx, locked);
    }
    const row = await findTaskBySource(tx, locked.id, 'turn_start:turn');
    return { row: row ?? null, run: locked };
  });
}

/**
 * A prompt's hook asking again about its turn's `turn_start` hook (by its
 * task key) after the turn ended (a member stopped it, its deadline passed):
 * answered from that turn, never from a new one, since the prompt did not
 * pass the hook. Allowed only when the hook had passed before the turn ended.
 * @throws AirlockError task_not_found for a key of no `turn_start` hook row of the turn.
 */
export async function promptOfEndedTurn(
  ctx: KernelContext,
  run: RunTable,
  taskKey: string,
): Promise<Pick<HookedAnswer, 'verdict' | 'reason' | 'task_key' | 'task_state'>> {
  const row = await findTask(ctx.store, run.id, taskKey);
  if (row?.kind !== 'hook' || hookEventOf(row) !== 'turn_start') {
    throw new AirlockError('task_not_found', `no turn_start hook ${taskKey} in run ${run.id}`);
  }
  const about = { task_key: row.key, task_state: row.state };
  const outcome = hookOutcome(row);
  if (outcome.status === 'passed' && !outcome.result.continue) {
    return { ...about, verdict: 'ack', reason: null };
  }
  const ended = run.state === 'canceled' ? 'was stopped' : `ended ${run.state}`;
  return {
    ...about,
    verdict: 'deny',
    reason: `the turn ${ended} before its turn_start hook ${row.tool_name} let the prompt through`,
  };
}
