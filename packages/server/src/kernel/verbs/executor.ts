import { AirlockError } from '../../errors.js';
import { type Principal, principalName } from '../../store/accounts.js';
import { effectProfileFromColumn } from '../../store/effect-profile-column.js';
import { newId } from '../../store/ids.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import {
  CANDIDATE_PAGE,
  type CandidateCursor,
  claimCandidates,
  isAgentsOwnCall,
  listInboxRows,
  type RowAddress,
  readVisibleTaskAhead,
} from '../../store/task-inbox.js';
import { preciseNow } from '../../tracing/call-tracing.js';
import type { KernelContext } from '../context.js';
import { checkHookCommit } from '../hooks/hooks.js';
import { stopDecisionError } from '../hooks/lifecycle.js';
import { moveTask } from '../machines/move-task.js';
import { checkMove } from '../machines/task-machine.js';
import { claimGuardrails, readGuardrailsAhead, refuseAtClaim } from '../stage/claim-guardrails.js';
import { type TaskView, taskView } from '../views.js';
import { takeClaimLocks } from './claim-serialization.js';
import type { TaskAddress } from './decisions.js';
import { executorFailure } from './executor-failure.js';
import {
  type InboxKind,
  inboxKind,
  leaseFor,
  lockTaskRun,
  refuseDecisionRows,
  refuseMovedRow,
  rowAddress,
  runOf,
  type VisibleTask,
  visibleTask,
} from './executor-rows.js';

/** One row on an executor's inbox: work to claim (`tool`) or a decision to watch (`approval`, `ask`). */
export interface InboxItem {
  kind: InboxKind;
  run_id: string;
  task_key: string;
  state: string;
  tool_name: string;
  tool_input: unknown;
  effect_profile: unknown;
  deadline_at: number | null;
  created_at: number;
}

/** Lists an executor's inbox: runnable tool rows, and parks and questions addressed to its application. */
export async function listInbox(
  ctx: KernelContext,
  principal: Principal,
  options: { limit: number },
): Promise<InboxItem[]> {
  const rows = await listInboxRows(ctx.store, {
    workspaceId: principal.workspace_id,
    applicationId: principal.agent_application_id,
    limit: options.limit,
  });
  return rows.map((row) => {
    const toolInput: unknown = JSON.parse(row.tool_input);
    return {
      kind: inboxKind(row),
      run_id: row.run_id,
      task_key: row.key,
      state: row.state,
      tool_name: row.tool_name,
      tool_input: toolInput,
      effect_profile: effectProfileFromColumn(row.effect_profile, toolInput),
      deadline_at: row.deadline_at,
      created_at: row.created_at,
    };
  });
}

/** A claim: the row and the claim id that heartbeats and the commit must present. */
export interface Claim {
  claim_id: string;
  lease_until: number;
  /** The lease granted, from this transaction's now: what an executor measures on its own clock. */
  lease_ms: number;
  task: TaskView;
}

/**
 * Why a claim did not take its row: a claim on its sequential tool or one of
 * its paths holds it back (`held_back`), or the row moved after it was read
 * (`moved`: on PostgreSQL another kernel's claim of it committed first).
 */
type NotTaken = 'held_back' | 'moved';

async function takeRow(
  tx: Tx,
  row: VisibleTask,
  principal: Principal,
  leaseMs: number,
): Promise<Claim | NotTaken> {
  // Sequential tools and file mutations wait while another claim holds their tool or path.
  if (row.run_has_layers && (await takeClaimLocks(tx, row)) !== null) return 'held_back';
  const claimId = newId('claim');
  const leaseUntil = tx.now + leaseMs;
  const attempt = row.attempts + 1;
  const claimed = await moveTask(
    tx,
    {
      verb: 'claim',
      run: runOf(row),
      key: row.key,
      to: 'claimed',
      set: { claim_id: claimId, lease_until: leaseUntil, attempts: attempt },
      event: { type: 'task.claimed', data: { lease_until: leaseUntil, attempt } },
      principal: principalName(principal),
    },
    { quiet: true },
  );
  if (!claimed) return 'moved';
  return { claim_id: claimId, lease_until: leaseUntil, lease_ms: leaseMs, task: taskView(claimed) };
}

/**
 * Claims a row planted in the caller's own transaction (a gateway round that
 * runs its granted calls itself), from the row as written: no other unit can
 * have moved it since. Null when the row is not runnable, or a claim on its
 * sequential tool or paths holds it back (the update is guarded either way).
 */
export async function claimPlanted(
  ctx: KernelContext,
  tx: Tx,
  principal: Principal,
  run: RunTable,
  planted: TaskTable,
  leaseMs: number | undefined,
): Promise<Claim | null> {
  if (planted.state !== 'runnable' || planted.kind !== 'tool') return null;
  const row = { ...planted, run_state: run.state, run_has_layers: run.policy_layers !== null };
  const taken = await takeRow(tx, row, principal, leaseFor(ctx, leaseMs));
  return typeof taken === 'string' ? null : taken;
}

/**
 * Claims one runnable row with a lease. A row a guardrail added since it was
 * granted or approved now denies is not claimed: it fails `approval_denied`
 * with the guardrail's reason, the model reads it (see claim-guardrails.ts),
 * and the claim answers not_claimable naming that reason.
 * @throws AirlockError not_claimable_kind for approval/ask rows and a hooked agent's own
 *   call, not_claimable when not runnable or refused by a guardrail.
 */
export async function claimTask(
  ctx: KernelContext,
  principal: Principal,
  address: TaskAddress,
  options: { lease_ms?: number | undefined },
): Promise<Claim> {
  const startedAt = ctx.tracing ? preciseNow() : 0;
  // Twice at most: a guardrail lifted between the claim's reading and the refusal's claims again.
  for (let attempt = 0; ; attempt += 1) {
    const claim = await ctx.store.transaction(async (tx) => {
      const guardrails = claimGuardrails(
        tx,
        principal.workspace_id,
        readGuardrailsAhead(tx, principal.workspace_id),
      );
      const row = await visibleTask(tx, principal, address);
      refuseDecisionRows(row);
      if (await isAgentsOwnCall(tx, rowAddress(principal, address))) {
        throw new AirlockError(
          'not_claimable_kind',
          `task ${row.key} is a hooked agent's own call: the agent runs it itself`,
        );
      }
      checkMove('claim', row, runOf(row));
      if ((await guardrails(row)) !== null) return null;
      const taken = await takeRow(tx, row, principal, leaseFor(ctx, options.lease_ms));
      if (taken === 'held_back') {
        throw new AirlockError(
          'not_claimable',
          `task ${row.key} is runnable, but another claimed call holds its sequential tool or one of its paths`,
        );
      }
      if (taken === 'moved') return refuseMovedRow(tx, principal, address);
      return taken;
    });
    if (claim !== null) {
      traceClaim(ctx, principal, claim, startedAt);
      return claim;
    }
    const reason = await refuseAtClaim(ctx, rowAddress(principal, address));
    if (reason !== null || attempt > 0) {
      throw new AirlockError(
        'not_claimable',
        reason === null
          ? `task ${address.taskKey} changed while it was being claimed; read it again`
          : `task ${address.taskKey} is refused by a guardrail added since it was granted, and will not run: ${reason}`,
      );
    }
  }
}

/** Records a claim's span in its call's trace. */
export function traceClaim(
  ctx: KernelContext,
  principal: Principal,
  claim: Claim | null,
  startedAt: number,
): void {
  if (!claim) return;
  ctx.tracing?.callStep(
    { workspaceId: principal.workspace_id, runId: claim.task.run_id, key: claim.task.key },
    'claim',
    { startedAt, attributes: { 'airlock.claim_id': claim.claim_id } },
  );
}

/**
 * How many candidates one claim looks at before it answers null: rows held
 * back by a path lock are tried one by one (their keys come from the tool's
 * input), so the walk past them is bounded. Rows a sequential tool's claim
 * holds back are left out by the read itself, at no cost.
 */
export const CLAIM_SCAN_LIMIT = 4 * CANDIDATE_PAGE;

/**
 * Claims the oldest runnable row visible to the executor that a claim may
 * take now, or returns null. Pages on through the candidates (oldest first,
 * by a keyset) while every row read is held back by another claim's lock,
 * up to CLAIM_SCAN_LIMIT rows. On PostgreSQL, candidates are read with FOR
 * UPDATE SKIP LOCKED so several kernels hand out different rows. A candidate
 * a guardrail added since its grant now denies is passed by and then fails
 * `approval_denied` (see claim-guardrails.ts).
 */
export async function claimNext(
  ctx: KernelContext,
  principal: Principal,
  options: { lease_ms?: number | undefined; tool_names?: string[] | undefined },
): Promise<Claim | null> {
  const owner = {
    workspaceId: principal.workspace_id,
    applicationId: principal.agent_application_id,
    toolNames: options.tool_names,
  };
  const startedAt = ctx.tracing ? preciseNow() : 0;
  // Rows a guardrail now refuses: failed once the claim's unit ends, each in a unit of its own.
  const refused: RowAddress[] = [];
  const claim = await ctx.store.transaction(async (tx) => {
    refused.length = 0;
    const guardrails = claimGuardrails(
      tx,
      principal.workspace_id,
      readGuardrailsAhead(tx, principal.workspace_id),
    );
    let after: CandidateCursor | undefined;
    for (let scanned = 0; scanned < CLAIM_SCAN_LIMIT; scanned += CANDIDATE_PAGE) {
      const candidates = await claimCandidates(tx, owner, after);
      for (const candidate of candidates) {
        if (candidate.run_state !== 'running') continue;
        if ((await guardrails(candidate)) !== null) {
          refused.push({ ...owner, runId: candidate.run_id, key: candidate.key });
          continue;
        }
        const taken = await takeRow(tx, candidate, principal, leaseFor(ctx, options.lease_ms));
        if (typeof taken !== 'string') return taken;
      }
      const last = candidates.at(-1);
      if (!last || candidates.length < CANDIDATE_PAGE) return null;
      after = { createdAt: last.created_at, runId: last.run_id, key: last.key };
    }
    return null;
  });
  for (const address of refused) await refuseAtClaim(ctx, address);
  traceClaim(ctx, principal, claim, startedAt);
  return claim;
}

/**
 * Extends a claim's lease; answers it as granted, on the kernel's clock and as a length.
 * @throws AirlockError lease_lost when the claim is no longer the row's.
 */
export async function heartbeat(
  ctx: KernelContext,
  principal: Principal,
  address: TaskAddress & { claimId: string; leaseMs?: number | undefined },
): Promise<{ lease_until: number; lease_ms: number }> {
  return ctx.store.transaction(async (tx) => {
    const row = await visibleTask(tx, principal, address);
    const leaseMs = leaseFor(ctx, address.leaseMs);
    const leaseUntil = tx.now + leaseMs;
    await moveTask(tx, {
      verb: 'heartbeat',
      run: runOf(row),
      key: row.key,
      to: 'claimed',
      match: { claim_id: address.claimId },
      set: { lease_until: leaseUntil },
      event: null,
      principal: principalName(principal),
    });
    return { lease_until: leaseUntil, lease_ms: leaseMs };
  });
}

/**
 * Commits a claimed row's result or failure; a failure then follows the row's on_failure.
 * A failure code the kernel keeps for its own decisions and clocks is
 * recorded as `tool_failed` (see `executorFailure`).
 * A hook row's result is `{structured_content}` holding a decision core
 * accepts for its event; anything else commits as failed `invalid_hook_result`.
 * @throws AirlockError task_not_found (also for an unknown run), not_claimable_kind, lease_lost.
 */
export async function commitTask(
  ctx: KernelContext,
  principal: Principal,
  address: TaskAddress & {
    claimId: string;
    outcome: 'succeeded' | 'failed';
    result?: unknown;
    error?: { code: string; detail: string } | undefined;
  },
): Promise<TaskView> {
  const startedAt = ctx.tracing ? preciseNow() : 0;
  const committed = await ctx.store.transaction(async (tx) => {
    // On PostgreSQL the row's read goes out right after the run's lock, in the same write.
    const ahead = readVisibleTaskAhead(tx, rowAddress(principal, address));
    const run = await lockTaskRun(tx, principal, address);
    const row = await visibleTask(tx, principal, address, ahead);
    refuseDecisionRows(row);
    // A hook's result is checked here: an invalid decision, or one the kernel
    // cannot follow (a continuation past the allowance), fails now, never an ending.
    const invalid =
      row.kind === 'hook' && address.outcome === 'succeeded'
        ? (checkHookCommit(row, address.result) ?? stopDecisionError(ctx, run, row, address.result))
        : null;
    const failed = address.outcome === 'failed' || invalid !== null;
    const error = invalid ?? executorFailure(address.error);
    const errorCode = failed ? (error?.code ?? 'tool_failed') : null;
    const errorDetail = failed ? (error?.detail ?? 'the tool failed') : null;
    const moved = await moveTask(tx, {
      verb: 'commit',
      run,
      key: row.key,
      to: failed ? 'failed' : 'succeeded',
      match: { claim_id: address.claimId },
      set: {
        result: JSON.stringify(address.result ?? null),
        error_code: errorCode,
        error_detail: errorDetail,
        lease_until: null,
        deadline_at: null,
      },
      event:
        errorCode !== null && errorDetail !== null
          ? { type: 'task.failed', data: { error: { code: errorCode, detail: errorDetail } } }
          : { type: 'task.succeeded' },
      principal: principalName(principal),
      settle: { ctx, run },
    });
    return taskView(moved);
  });
  ctx.tracing?.callStep(
    { workspaceId: principal.workspace_id, runId: address.runId, key: address.taskKey },
    'commit',
    { startedAt, attributes: { 'airlock.outcome': committed.state } },
  );
  return committed;
}
