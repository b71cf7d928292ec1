import { setTimeout as sleep } from 'node:timers/promises';
import { HOOKED_OUTPUT_MAX_BYTES, truncateUtf8 } from '@airlock/core';
import { AirlockError } from '../../errors.js';
import {
  type CallLookupsAhead,
  findIdenticalModelCall,
  findModelRowByCallId,
  listClaimedModelRows,
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
import { type HookedCall, hookedPrincipal, type RanCall } from './agent-calls.js';
import { checkNotGranted, checkPresentedCall, presentedMismatch } from './call-binding.js';
import { emitUnstagedCall } from './unstaged-calls.js';

/**
 * The row of a call asked about again: by its key, or by the agent's id for
 * the call; null when neither names one. A key names only a call of the
 * agent's model (a lifecycle hook's row is no call of the agent's).
 * @throws AirlockError task_not_found for a key of no call of the model.
 */
async function findCallRow(
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
const POST_TOOL_IDENTICAL: readonly ('claimed' | 'needs_approval')[] = [
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
async function identicalWaitingRow(
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
 * @throws AirlockError run_busy while the run waits on a lifecycle hook or a final answer.
 */
async function plantCall(
  ctx: KernelContext,
  tx: Tx,
  run: RunTable,
  call: HookedCall,
): Promise<TaskTable> {
  if (run.pending_answer !== null || run.phase === 'hook') {
    throw new AirlockError('run_busy', `run ${run.id} waits on a lifecycle hook`);
  }
  const calls = [{ id: call.toolUseId, name: call.toolName, input: call.toolInput }];
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
async function takeForAgent(
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
  let row =
    asked ??
    (await identicalWaitingRow(tx, run, call, PRE_TOOL_IDENTICAL, ahead)) ??
    (await plantCall(ctx, tx, run, call));
  if (row.state === 'runnable' && row.kind === 'tool' && run.state === 'running') {
    row = await takeForAgent(ctx, tx, run, row, { agent, toolUseId: call.toolUseId });
  }
  return row;
}

/** A hooked call's output as its row keeps it: one text part. */
export function ranResult(output: string): string {
  return JSON.stringify({ content: [{ type: 'text', text: output }] });
}

/** The failure a hooked call's row records: `tool_failed`, its detail cut to 256 bytes. */
export function toolFailure(detail: string): { code: 'tool_failed'; detail: string } {
  return { code: 'tool_failed', detail: truncateUtf8(detail, 256) };
}

/** What a report of a call did to its row; `mismatch` when the row holds another call. */
export interface PostToolOutcome {
  row: TaskTable | null;
  /** The detail of the row's `call_mismatch`: what the agent reported running instead. */
  mismatch: string | null;
}

/**
 * Commits what the agent ran to its row: outcome and output (cut to 16 KiB),
 * so the run story and the audit trail show it. A parked row the agent's own
 * user answered in the agent's prompt is approved as such first. The row is
 * null when no row of the session matches (the call never crossed the
 * stage). A report under a row's call id or key of another call than the
 * row holds is recorded, not refused: see {@link commitMismatch}.
 * @throws AirlockError task_not_found for a key of no call of the model.
 */
export async function postToolRow(
  ctx: KernelContext,
  tx: Tx,
  run: RunTable,
  options: { agent: string; ran: RanCall; taskKey?: string | undefined },
  ahead?: CallLookupsAhead,
): Promise<PostToolOutcome> {
  const { ran, agent } = options;
  const by = { taskKey: options.taskKey, toolUseId: ran.toolUseId };
  const asked = await findCallRow(tx, run, by, ahead);
  if (asked) {
    const mismatch = await presentedMismatch(tx, run, asked, { call: ran, at: 'post_tool' });
    if (mismatch !== null) {
      return {
        row: await commitMismatch(ctx, tx, run, { agent, ran, row: asked, mismatch }),
        mismatch,
      };
    }
  }
  let row = asked ?? (await identicalWaitingRow(tx, run, ran, POST_TOOL_IDENTICAL, ahead));
  if (!row) return { row: null, mismatch: null };
  const principal = hookedPrincipal(agent);
  if (row.state === 'needs_approval' && ran.answeredByUser && run.state === 'running') {
    const who = `${principal}:user`;
    row = await moveTask(tx, {
      verb: 'approve',
      run,
      key: row.key,
      to: 'runnable',
      set: { deadline_at: null, decided_by: who },
      event: { type: 'task.approved', data: { decided_by: who, in_agent_prompt: true } },
      principal: who,
    });
  }
  if (row.state === 'runnable' && run.state === 'running') {
    row = await takeForAgent(ctx, tx, run, row, { agent, toolUseId: ran.toolUseId });
  }
  if (row.state !== 'claimed' || row.claim_id === null) return { row, mismatch: null };
  const output = truncateUtf8(ran.output, HOOKED_OUTPUT_MAX_BYTES);
  const failed = ran.outcome === 'failed';
  const error = failed ? toolFailure(ran.output || 'the tool failed') : null;
  const committed = await moveTask(tx, {
    verb: 'commit',
    run,
    key: row.key,
    to: failed ? 'failed' : 'succeeded',
    match: { claim_id: row.claim_id },
    set: {
      result: ranResult(output),
      error_code: error?.code ?? null,
      error_detail: error?.detail ?? null,
      lease_until: null,
      deadline_at: null,
    },
    event: error
      ? { type: 'task.failed', data: { error } }
      : { type: 'task.succeeded', data: { ran_by: agent } },
    principal,
    settle: { ctx, run },
  });
  return { row: committed, mismatch: null };
}

/**
 * Records a report of another call than its row holds (another tool or
 * input: a hook rewrote it, or the agent ran the model's input instead of a
 * person's edit): what ran is a `run.unstaged_call` (no layer decided it),
 * and the row granted for the call (claimed, or approved and not yet
 * claimed) fails `call_mismatch`, its detail naming what ran, since the
 * call decided did not run as decided. A row not granted, or already
 * closed, stays as it is.
 */
async function commitMismatch(
  ctx: KernelContext,
  tx: Tx,
  run: RunTable,
  options: { agent: string; ran: RanCall; row: TaskTable; mismatch: string },
): Promise<TaskTable> {
  const { agent, ran } = options;
  emitUnstagedCall(tx, run, {
    agent,
    call: {
      toolName: ran.toolName,
      toolUseId: ran.toolUseId,
      outcome: ran.outcome,
      output: ran.output,
      foundIn: 'post_tool',
    },
  });
  let row = options.row;
  if (row.state === 'runnable' && run.state === 'running') {
    row = await takeForAgent(ctx, tx, run, row, { agent, toolUseId: ran.toolUseId });
  }
  if (row.state !== 'claimed' || row.claim_id === null) return row;
  return failClaimed(ctx, tx, run, {
    row,
    claimId: row.claim_id,
    agent,
    error: { code: 'call_mismatch', detail: options.mismatch },
  });
}

/** Fails a row the agent holds (claimed under `claimId`) with `error`, as the agent's commit. */
function failClaimed(
  ctx: KernelContext,
  tx: Tx,
  run: RunTable,
  options: {
    row: TaskTable;
    claimId: string;
    agent: string;
    error: { code: string; detail: string };
  },
): Promise<TaskTable> {
  const { error } = options;
  return moveTask(tx, {
    verb: 'commit',
    run,
    key: options.row.key,
    to: 'failed',
    match: { claim_id: options.claimId },
    set: {
      error_code: error.code,
      error_detail: error.detail,
      lease_until: null,
      deadline_at: null,
    },
    event: { type: 'task.failed', data: { error } },
    principal: hookedPrincipal(options.agent),
    settle: { ctx, run },
  });
}

/**
 * Closes the calls the agent was allowed but never reported (its own
 * permission flow refused them, or it stopped): failed `not_run`, so the
 * turn can end and the story says they did not run.
 */
export async function closeUnreported(
  ctx: KernelContext,
  tx: Tx,
  run: RunTable,
  agent: string,
): Promise<void> {
  const rows = await listClaimedModelRows(tx, run.id);
  for (const row of rows) {
    if (row.claim_id === null) continue;
    await failClaimed(ctx, tx, run, {
      row,
      claimId: row.claim_id,
      agent,
      error: { code: 'not_run', detail: `${agent} did not report running this call` },
    });
  }
}

/**
 * How long after a call was granted its report may still be on its way:
 * Claude Code sends `PostToolUse` from a hook that runs in the background,
 * so a turn's `Stop` can arrive before the report of its last call.
 */
export const REPORT_GRACE_MS = 1_500;

/** How often a `Stop` looks again for reports still on their way. */
const REPORT_POLL_MS = 20;

/**
 * Waits (at most {@link REPORT_GRACE_MS}) until the agent reported every
 * call of the run it was granted within the grace, so that `Stop` closes as
 * not run only the calls that did not run. Returns at once when no granted
 * call is unreported, or when the newest was granted longer ago than the
 * grace (its report is not coming).
 */
export async function awaitReportsInFlight(ctx: KernelContext, runId: string): Promise<void> {
  const started = performance.now();
  for (;;) {
    const rows = await listClaimedModelRows(ctx.store, runId);
    if (rows.length === 0) return;
    const newest = Math.max(...rows.map((row) => row.updated_at));
    const waited = performance.now() - started;
    if (ctx.store.now() - newest >= REPORT_GRACE_MS || waited >= REPORT_GRACE_MS) return;
    await sleep(REPORT_POLL_MS);
  }
}
