import type { RunTable } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { compactIfDue } from './compaction.js';
import type { KernelContext } from './context.js';
import { answerExtras, failHookRow, hookOutcome, hookRow, hooksOf, waitForHook } from './hooks.js';
import { finishRun, touchRun } from './run-state.js';

/**
 * Takes the lifecycle steps due before the run's next model request, in the
 * caller's transaction (which holds the run row): a candidate answer's stop
 * hook, `turn_start` before the first request, and compaction. Returns true
 * when the model may be asked now; false when the run waits on a kernel row
 * (or ended).
 */
export async function beforeModel(ctx: KernelContext, tx: Tx, run: RunTable): Promise<boolean> {
  if (run.pending_answer !== null) return evaluateStop(ctx, tx, run);
  if (run.round === 0 && run.continuations === 0) {
    const row = await hookRow(ctx, tx, run, { event: 'turn_start', source: 'turn', round: 0 });
    if (row && hookOutcome(row).status !== 'passed') {
      await waitForHook(tx, run);
      return false;
    }
  }
  return compactIfDue(ctx, tx, run);
}

/**
 * A final answer is ready. Without a stop hook the run completes with it;
 * with one the answer waits (as the run's pending answer) for the hook's decision.
 */
export async function onFinalAnswer(
  ctx: KernelContext,
  tx: Tx,
  run: RunTable,
  answer: string,
): Promise<void> {
  if (!hooksOf(run).stop) {
    await finishRun(tx, run, { state: 'completed', finalAnswer: answer });
    return;
  }
  run.pending_answer = answer;
  touchRun(tx, run);
  await evaluateStop(ctx, tx, run);
}

/**
 * Passes the pending answer through the stop hook: delivered on `continue:
 * false`; another model round with the feedback on `continue: true`, within
 * `max_continuations`; anything else leaves a failed hook row and a hold.
 */
async function evaluateStop(ctx: KernelContext, tx: Tx, run: RunTable): Promise<boolean> {
  const answer = run.pending_answer ?? '';
  const stop = hooksOf(run).stop;
  const row = await hookRow(ctx, tx, run, {
    event: 'stop',
    source: String(run.continuations),
    // The round whose model request reads the feedback, should the hook ask for one.
    round: run.round + 1,
    extras: answerExtras(answer),
  });
  if (!stop || !row) {
    await finishRun(tx, run, { state: 'completed', finalAnswer: answer });
    return false;
  }
  const outcome = hookOutcome(row);
  if (outcome.status !== 'passed') {
    await waitForHook(tx, run);
    return false;
  }
  if (!outcome.result.continue) {
    await finishRun(tx, run, { state: 'completed', finalAnswer: answer });
    return false;
  }
  if (run.continuations >= stop.max_continuations) {
    await failHookRow(tx, run, row, {
      code: 'max_continuations_exceeded',
      detail: `the stop hook asked for continuation ${run.continuations + 1}; max_continuations is ${stop.max_continuations}`,
    });
    return false;
  }
  const kind = (JSON.parse(run.provider) as { kind: string }).kind;
  if (!ctx.providers.get(kind)) {
    await failHookRow(tx, run, row, {
      code: 'hook_requires_model',
      detail: `a continuation needs a model round to inherit; this kernel serves no ${kind} provider`,
    });
    return false;
  }
  run.continuations += 1;
  run.round += 1;
  run.pending_answer = null;
  run.phase = 'model';
  touchRun(tx, run);
  tx.emit({
    workspace_id: run.workspace_id,
    run_id: run.id,
    task_key: row.key,
    type: 'run.continued',
    data: { continuation: run.continuations, round: run.round },
    principal: 'kernel',
  });
  return true;
}
