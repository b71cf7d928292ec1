import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import type { KernelContext } from '../context.js';
import { compactIfDue } from '../loop/compaction.js';
import { endRun, providerKind, setRunPhase, touchRun } from '../machines/run-machine.js';
import { openObligation, stopSourceOf } from '../machines/run-state.js';
import {
  answerExtras,
  failHookRow,
  hookEventOf,
  hookOutcome,
  hookRow,
  hooksOf,
  waitForHook,
} from './hooks.js';

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
 * A final answer is ready. It waits (as the run's pending answer) until every
 * row of every origin has settled and nothing holds; then, without a stop
 * hook, the run completes with it, and with one it waits for the hook's decision.
 */
export async function onFinalAnswer(
  ctx: KernelContext,
  tx: Tx,
  run: RunTable,
  answer: string,
): Promise<void> {
  run.pending_answer = answer;
  touchRun(tx, run);
  await evaluateStop(ctx, tx, run);
}

/**
 * Why a stop hook's committed decision cannot be followed (a continuation
 * past `max_continuations`, or with no model round to inherit), or null when
 * it can (or the row is no stop hook, or asks for no continuation).
 */
export function stopDecisionError(
  ctx: KernelContext,
  run: RunTable,
  row: Pick<TaskTable, 'hook_source'>,
  result: unknown,
): { code: string; detail: string } | null {
  const stop = hooksOf(run).stop;
  if (!stop || hookEventOf(row) !== 'stop') return null;
  const content = (result as { structured_content?: { continue?: unknown } } | null)
    ?.structured_content;
  if (content?.continue !== true) return null;
  if (run.continuations >= stop.max_continuations) {
    return {
      code: 'max_continuations_exceeded',
      detail: `the stop hook asked for continuation ${run.continuations + 1}; max_continuations is ${stop.max_continuations}`,
    };
  }
  const kind = providerKind(run);
  if (!ctx.providers.get(kind)) {
    return {
      code: 'hook_requires_model',
      detail: `a continuation needs a model round to inherit; this kernel serves no ${kind} provider`,
    };
  }
  return null;
}

/**
 * Passes the pending answer through the stop hook once outstanding
 * obligations permit delivery: delivered on `continue: false`; another model
 * round with the feedback on `continue: true`, within `max_continuations`;
 * anything else leaves a failed hook row and a hold.
 */
async function evaluateStop(ctx: KernelContext, tx: Tx, run: RunTable): Promise<boolean> {
  const answer = run.pending_answer ?? '';
  const stop = hooksOf(run).stop;
  if (await openObligation(tx, run, stopSourceOf(run))) {
    // Rows of any origin still open, or a hold: the answer waits for them. A run whose round is
    // still open (a hooked agent's stop while a call it gave up on waits for it) already waits there.
    if (run.phase !== 'tools') setRunPhase(tx, run, 'wait_for_obligations');
    return false;
  }
  const row = stop
    ? await hookRow(ctx, tx, run, {
        event: 'stop',
        source: String(run.continuations),
        // The round whose model request reads the feedback, should the hook ask for one.
        round: run.round + 1,
        extras: answerExtras(answer),
      })
    : null;
  if (!stop || !row) {
    await endRun(tx, run, { state: 'completed', finalAnswer: answer });
    return false;
  }
  const outcome = hookOutcome(row);
  if (outcome.status !== 'passed') {
    await waitForHook(tx, run);
    return false;
  }
  if (!outcome.result.continue) {
    await endRun(tx, run, { state: 'completed', finalAnswer: answer });
    return false;
  }
  const refused = stopDecisionError(ctx, run, row, JSON.parse(row.result ?? 'null'));
  if (refused) {
    // A decision committed before its check existed: fail the row now, never an ending.
    await failHookRow(tx, run, row, refused);
    return false;
  }
  run.continuations += 1;
  run.round += 1;
  run.pending_answer = null;
  setRunPhase(tx, run, 'continued');
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
