import { truncateUtf8 } from '@airlock/core';
import type { CallLookupsAhead } from '../../store/hooked-rows.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import type { KernelContext } from '../context.js';
import { moveTask } from '../machines/move-task.js';
import { LATE_REPORTABLE, OUTCOME_UNKNOWN } from '../machines/task-machine.js';
import { hookedPrincipal, type RanCall } from './agent-calls.js';
import { approveInAgentPrompt } from './agent-prompt.js';
import { presentedMismatch } from './call-binding.js';
import {
  findCallRow,
  identicalWaitingRow,
  POST_TOOL_IDENTICAL,
  takeForAgent,
} from './hooked-calls.js';
import { placeIdlessReport } from './idless-report.js';
import { keptOutput, ranResult } from './ran-result.js';
import { emitUnstagedCall } from './unstaged-calls.js';

/*
 * What a hooked agent reports it ran (post_tool), and the calls it never
 * reported: committed to their rows, or recorded as run without a grant.
 */

/** The failure a hooked call's row records: `tool_failed`, its detail cut to 256 bytes. */
export function toolFailure(detail: string): { code: 'tool_failed'; detail: string } {
  return { code: 'tool_failed', detail: truncateUtf8(detail, 256) };
}

/** What a report of a call did to its row; `mismatch` when the row holds another call. */
export interface PostToolOutcome {
  row: TaskTable | null;
  /** The detail of the row's `call_mismatch`: what the agent reported running instead. */
  mismatch: string | null;
  /** Set when the call ran though its row was never granted: what the row was instead. */
  ungranted?: string;
  /** Set for a report with no call id whose row is of another turn of the conversation. */
  elsewhere?: { runId: string; key: string };
  /** Set for a report with no call id that matches rows of more than one turn: why none took it. */
  unmatched?: string;
}

/**
 * Commits what the agent ran to its row: outcome and output (cut to 16 KiB, see keptOutput),
 * so the run story and the audit trail show it. A parked row the agent's own
 * user answered in the agent's prompt is approved as such first, where the
 * kernel handed it to that prompt (see {@link approveInAgentPrompt}). A call
 * whose row was never granted (parked, refused, expired) is recorded as an
 * unstaged call, and its row is left as it is. The row is
 * null when no row of the turn matches (the call never crossed the stage,
 * or, with no call id, its row is of another turn: see {@link placeIdlessReport}).
 * A report under a row's call id or key of another call than the
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
  let row = asked;
  if (!row && ran.toolUseId === null) {
    const place = await placeIdlessReport(ctx, tx, { run, ran });
    if (place?.kind === 'elsewhere') return { row: null, mismatch: null, elsewhere: place };
    if (place?.kind === 'ambiguous') return { row: null, mismatch: null, unmatched: place.detail };
    row = place?.row ?? null;
  }
  row ??= ofThisCall(await identicalWaitingRow(tx, run, ran, POST_TOOL_IDENTICAL, ahead), ran);
  if (!row) return { row: null, mismatch: null };
  if (ran.answeredByUser) row = await approveInAgentPrompt(tx, run, row, agent);
  if (row.state === 'runnable' && run.state === 'running') {
    row = await takeForAgent(ctx, tx, run, row, { agent, toolUseId: ran.toolUseId });
  }
  if (row.claim_id === null && row.state !== 'runnable') {
    // Parked, refused or expired, never granted: it ran all the same, and the story says so.
    emitUnstagedCall(tx, run, {
      agent,
      call: { ...ran, foundIn: 'post_tool' },
    });
    return { row, mismatch: null, ungranted: `the call ran while its row was ${row.state}` };
  }
  if (lapsedUnreported(row)) {
    // The report came after the row was closed unreported: what ran replaces the guess, nothing is granted.
    return {
      row: await commitRan(ctx, tx, run, { agent, ran, row, verb: 'late_report' }),
      mismatch: null,
    };
  }
  if (row.state !== 'claimed' || row.claim_id === null) return { row, mismatch: null };
  return {
    row: await commitRan(ctx, tx, run, { agent, ran, row, verb: 'commit' }),
    mismatch: null,
  };
}

/**
 * An identical call's row, unless it holds another call id: a row claimed
 * or parked under its own id waits for that call, and a report under
 * another id is of another call of the same tool and input (one of an
 * earlier turn, or one no hook asked about), never of this one: the exact
 * id wins over a match by input.
 */
function ofThisCall(row: TaskTable | null, ran: RanCall): TaskTable | null {
  const otherId =
    row !== null &&
    row.tool_call_id !== null &&
    ran.toolUseId !== null &&
    row.tool_call_id !== ran.toolUseId;
  return otherId ? null : row;
}

/**
 * True of a row the kernel closed unreported: its agent's claim lapsed (see
 * {@link lapseAgentClaim}), or its turn's stop closed it `not_run` or
 * `outcome_unknown` (see `closeUnreported`). Those were the kernel's guesses;
 * the agent's report of the call is the truth.
 */
export function lapsedUnreported(row: TaskTable): boolean {
  return (
    row.kind === 'tool' &&
    row.state === 'failed' &&
    row.error_code !== null &&
    LATE_REPORTABLE.includes(row.error_code)
  );
}

/**
 * Records what the agent ran on its row: as the claim holder's commit, or
 * as the correction of a row whose claim lapsed before the report came.
 */
export async function commitRan(
  ctx: KernelContext,
  tx: Tx,
  run: RunTable,
  options: { agent: string; ran: RanCall; row: TaskTable; verb: 'commit' | 'late_report' },
): Promise<TaskTable> {
  const { agent, ran, row } = options;
  const output = keptOutput(ran.output);
  const failed = ran.outcome === 'failed';
  const error = failed ? toolFailure(ran.output || 'the tool failed') : null;
  return moveTask(tx, {
    verb: options.verb,
    run,
    key: row.key,
    to: failed ? 'failed' : 'succeeded',
    ...(row.claim_id === null ? {} : { match: { claim_id: row.claim_id } }),
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
    principal: hookedPrincipal(agent),
    settle: { ctx, run },
  });
}

/**
 * Ends an agent's claim on its own call whose lease lapsed with no
 * `post_tool`: the agent may have run the call, so the row fails
 * `outcome_unknown` (its claim stays on it, as a commit's would) and no
 * later check is granted against it, nor against the approval it held: the
 * next identical call is a new row that crosses the approval stage afresh.
 * Only the agent's late report of the call changes it (to what ran).
 * Returns null when the row moved meanwhile (its report came first).
 */
export function lapseAgentClaim(
  ctx: KernelContext,
  tx: Tx,
  run: RunTable,
  task: Pick<TaskTable, 'key' | 'claim_id'>,
): Promise<TaskTable | null> {
  const error = {
    code: OUTCOME_UNKNOWN,
    detail: 'the agent did not report running this call before its claim lapsed: it may have run',
  };
  return moveTask(
    tx,
    {
      verb: 'lease_lapse',
      run,
      key: task.key,
      to: 'failed',
      match: { claim_id: task.claim_id ?? '' },
      due: 'lease_until',
      set: {
        error_code: error.code,
        error_detail: error.detail,
        lease_until: null,
        deadline_at: null,
      },
      event: { type: 'task.failed', data: { error } },
      principal: 'kernel',
      settle: { ctx, run },
    },
    { quiet: true },
  );
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
export function failClaimed(
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
