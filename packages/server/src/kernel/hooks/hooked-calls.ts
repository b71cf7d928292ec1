import { canonicalJson } from '@airlock/core';
import { protocolOf } from '@airlock/hooks';
import { AirlockError } from '../../errors.js';
import {
  type CallLookupsAhead,
  findIdenticalModelCall,
  findModelRowByCallId,
  listModelCalls,
  readCallLookupsAhead,
} from '../../store/hooked-rows.js';
import { newId } from '../../store/ids.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import { findTask } from '../../store/tasks.js';
import type { KernelContext } from '../context.js';
import { readCurrentRound } from '../loop/history.js';
import { applyRound, plantCalls } from '../loop/run-loop.js';
import { moveTask } from '../machines/move-task.js';
import { refuseIfGuarded } from '../stage/claim-guardrails.js';
import { type HookedCall, hookedPrincipal } from './agent-calls.js';
import { checkNotGranted, checkPresentedCall } from './call-binding.js';
import { wasEdited } from './hooked-verdicts.js';
import { runBusyDetail } from './run-busy.js';
import { madeInRowDirectory } from './working-directory.js';

/**
 * The row of a call asked about again: by its key, or by the agent's id for
 * the call; null when neither names one. A key names only a call of the
 * agent's model (a lifecycle hook's row is no call of the agent's).
 * @throws AirlockError task_not_found for a key of no call of the model.
 */
export async function findCallRow(
  tx: Tx,
  run: RunTable,
  by: { taskKey?: string | undefined; toolUseId: string | null },
  ahead: CallLookupsAhead | undefined,
): Promise<TaskTable | null> {
  if (by.taskKey !== undefined) {
    const row = await findTask(tx, run.id, by.taskKey);
    if (row?.origin !== 'model' || row.kind !== 'tool') {
      throw new AirlockError('task_not_found', `no task ${by.taskKey} in run ${run.id}`);
    }
    return row;
  }
  if (!by.toolUseId) return null;
  if (ahead?.byCallId) return (await ahead.byCallId)[0] ?? null;
  return (await findModelRowByCallId(tx, run.id, by.toolUseId)) ?? null;
}

/** The states in which a pre_tool takes over an identical call's row (see identicalWaitingRow). */
const PRE_TOOL_IDENTICAL: readonly ('runnable' | 'needs_approval')[] = [
  'runnable',
  'needs_approval',
];

/** The states in which a post_tool's report finds an identical call's row. */
export const POST_TOOL_IDENTICAL: readonly ('claimed' | 'needs_approval')[] = [
  'claimed',
  'needs_approval',
];

/**
 * On PostgreSQL, sends the lookups a `pre_tool` (`post_tool` with `report`)
 * makes with the unit's next statement, its run's lock; undefined on SQLite,
 * or when the event names its row by key (no lookup).
 */
export function callLookupsAhead(
  tx: Tx,
  runId: string,
  event: { call: HookedCall; taskKey?: string | undefined; report?: boolean },
): CallLookupsAhead | undefined {
  if (event.taskKey !== undefined) return undefined;
  return readCallLookupsAhead(tx, runId, {
    toolName: event.call.toolName,
    toolInputJson: JSON.stringify(event.call.toolInput ?? null),
    toolUseId: event.call.toolUseId,
    states: event.report ? POST_TOOL_IDENTICAL : PRE_TOOL_IDENTICAL,
  });
}

/**
 * A row the identical call may take over: one approved after its hook gave
 * up waiting (runnable, not yet claimed: granted once, to the first retry),
 * or one still parked (the retry waits on it instead of asking twice).
 */
export async function identicalWaitingRow(
  tx: Tx,
  run: RunTable,
  call: HookedCall,
  states: readonly ('runnable' | 'needs_approval' | 'claimed')[],
  ahead: CallLookupsAhead | undefined,
): Promise<TaskTable | null> {
  if (ahead) return (await ahead.identical)[0] ?? null;
  const row = await findIdenticalModelCall(tx, run.id, {
    toolName: call.toolName,
    toolInputJson: JSON.stringify(call.toolInput ?? null),
    states,
  });
  return row ?? null;
}

/**
 * Plants a call as a model row through the approval stage: it opens a round
 * when the run waits for its model, or joins the round still open.
 * @throws AirlockError run_busy while the run waits on a lifecycle hook, a hold or a final
 *   answer, the detail saying which (see {@link runBusyDetail}).
 */
async function plantCall(
  ctx: KernelContext,
  tx: Tx,
  run: RunTable,
  call: HookedCall,
): Promise<TaskTable> {
  if (run.pending_answer !== null || run.phase === 'hook') {
    throw new AirlockError('run_busy', await runBusyDetail(tx, run));
  }
  const calls = [
    {
      id: call.toolUseId,
      name: call.toolName,
      input: call.toolInput,
      workingDirectory: call.workingDirectory,
    },
  ];
  const [row] =
    run.phase === 'tools'
      ? await plantCalls(ctx, tx, run, calls)
      : await applyRound(ctx, tx, run, await readCurrentRound(tx, run), {
          type: 'tool_calls',
          calls,
        });
  if (!row) throw new AirlockError('run_busy', `run ${run.id} planted no row for the call`);
  return row;
}

/**
 * Takes a granted row for the agent, which runs the call itself: claimed
 * under the longest lease, so no executor serving a tool of that name takes
 * it, until the agent reports what ran (post_tool).
 */
export async function takeForAgent(
  ctx: KernelContext,
  tx: Tx,
  run: RunTable,
  row: TaskTable,
  options: { agent: string; toolUseId: string | null },
): Promise<TaskTable> {
  const leaseUntil = tx.now + ctx.maxLeaseMs;
  const attempt = row.attempts + 1;
  return moveTask(tx, {
    verb: 'claim',
    run,
    key: row.key,
    to: 'claimed',
    set: {
      claim_id: newId('claim'),
      lease_until: leaseUntil,
      attempts: attempt,
      ...(options.toolUseId !== null && options.toolUseId !== row.tool_call_id
        ? { tool_call_id: options.toolUseId }
        : {}),
    },
    event: { type: 'task.claimed', data: { lease_until: leaseUntil, attempt, by_agent: true } },
    principal: hookedPrincipal(options.agent),
  });
}

/**
 * A call the agent is about to run: the row it is about (asked again by key
 * or by the agent's call id; an identical call approved after its hook gave
 * up; or a new model row through the approval stage). A granted row is
 * claimed for the agent in the same transaction, once.
 * @throws AirlockError call_mismatch when the row asked about holds another call,
 *   not_claimable when its call was already granted or ran, task_not_found (also for
 *   a key of no call of the model), run_busy.
 */
export async function preToolRow(
  ctx: KernelContext,
  tx: Tx,
  run: RunTable,
  options: { agent: string; call: HookedCall; taskKey?: string | undefined },
  ahead?: CallLookupsAhead,
): Promise<TaskTable> {
  const { call, agent } = options;
  const by = { taskKey: options.taskKey, toolUseId: call.toolUseId };
  const asked = await findCallRow(tx, run, by, ahead);
  if (asked) {
    await checkPresentedCall(tx, run, asked, call);
    checkNotGranted(asked);
  }
  const earlier =
    asked ??
    (await inSameDirectory(tx, run, {
      call,
      oldest: await identicalWaitingRow(tx, run, call, PRE_TOOL_IDENTICAL, ahead),
    }));
  let row = earlier ?? (await plantCall(ctx, tx, run, call));
  if (row.state === 'runnable' && row.kind === 'tool' && run.state === 'running') {
    if (refusedAsComposed(agent, row, call)) return row;
    // A row granted or approved before this look crossed the stage then: an admin's
    // guardrail written since binds it here as it does at an executor's claim.
    if (earlier && (await refuseIfGuarded(ctx, tx, { run, row })) !== null) {
      return (await findTask(tx, run.id, row.key)) ?? row;
    }
    row = await takeForAgent(ctx, tx, run, row, { agent, toolUseId: call.toolUseId });
  }
  return row;
}

/**
 * The oldest identical call's row the agent made from the same working
 * directory: from another, its relative paths name other files (`cat key`
 * after `cd secrets`), so what a person approved or the stage granted there
 * is not this call's, which crosses the stage as a new row unless a younger
 * identical row of its own directory waits (looked for only when the oldest
 * is of another directory, which is rare).
 */
async function inSameDirectory(
  tx: Tx,
  run: RunTable,
  options: { call: HookedCall; oldest: TaskTable | null },
): Promise<TaskTable | null> {
  const { call, oldest } = options;
  if (oldest === null || madeInRowDirectory(oldest, call)) return oldest;
  const input = JSON.stringify(call.toolInput ?? null);
  for (const model of await listModelCalls(tx, run.id)) {
    if (model.tool_name !== call.toolName || model.tool_input !== input) continue;
    if (model.key === oldest.key) continue;
    const row = await findTask(tx, run.id, model.key);
    if (row?.kind !== 'tool' || !PRE_TOOL_IDENTICAL.some((state) => state === row.state)) continue;
    if (madeInRowDirectory(row, call)) return row;
  }
  return null;
}

/**
 * The row of a call asked about again by its task key after its turn ended
 * (a member stopped the run, a deadline ended it): answered with what became
 * of it, granting nothing, instead of looking for the key in a new turn.
 * @throws AirlockError task_not_found, call_mismatch, not_claimable, as {@link preToolRow}.
 */
export async function rowOfEndedTurn(
  tx: Tx,
  run: RunTable,
  options: { call: HookedCall; taskKey: string },
): Promise<TaskTable> {
  const row = await findCallRow(tx, run, { taskKey: options.taskKey, toolUseId: null }, undefined);
  if (!row) throw new AirlockError('task_not_found', `no task ${options.taskKey} in run ${run.id}`);
  await checkPresentedCall(tx, run, row, options.call);
  checkNotGranted(row);
  return row;
}

/**
 * True when a call a person approved only with changes is presented as its
 * model composed it by an agent that cannot run the edit in its place
 * (Codex, Gemini CLI): it is refused, naming the edit, and its row is left
 * approved, not granted, for the call made again with the edit. A framework
 * adapter, or an agent of no known protocol, runs the edit it is handed.
 */
function refusedAsComposed(agent: string, row: TaskTable, call: HookedCall): boolean {
  if (!wasEdited(row) || protocolOf(agent)?.updatesInput !== false) return false;
  const edit = canonicalJson(JSON.parse(row.tool_input) as unknown);
  return canonicalJson(call.toolInput ?? null) !== edit;
}
