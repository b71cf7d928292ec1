import {
  asKeptText,
  type Decision,
  type LayerDecision,
  type OwnedOverlay,
  resolveToolName,
} from '@airlock/core';
import { readUserOverlayDigestsAhead, type UserOverlayDigest } from '../../store/overlays.js';
import { policyLayersOfRun } from '../../store/runs.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import { findTask } from '../../store/tasks.js';
import type { KernelContext } from '../context.js';
import { moveTask } from '../machines/move-task.js';
import { lockRunIfAny } from '../machines/run-state.js';
import { RULE_PRINCIPAL } from './approval-stage.js';
import { guardrailDecision } from './permissions-layer.js';
import { frozenOf } from './policy-layers.js';
import { workspaceGuardrails } from './workspace-guardrails.js';

/**
 * A call crosses the approval stage once, when it is planted; a person's
 * approval or a grant can leave it runnable for a long time before an
 * executor claims it. An admin's guardrail binds every call that has not run
 * yet, so a claim reads the workspace's guardrails again (through the cache
 * of workspace-guardrails.ts: one small read of the user documents' digests
 * per claim) and a call a guardrail now denies is not handed out: it fails
 * `approval_denied` with the guardrail's reason, which the model reads, as if
 * the stage had refused it. Only a deny binds here: a call a person approved
 * or the stage granted has had its say, and an `ask` added since does not
 * send it back to a person. Kernel rows (lifecycle hooks) are bound by the
 * declared rules alone, as at the stage.
 */

/** The row a claim weighs: its call, and whether its run froze policy layers. */
export type ClaimedCall = Pick<
  TaskTable,
  'run_id' | 'origin' | 'tool_name' | 'resolved_tool_name' | 'tool_input' | 'working_directory'
> & { run_has_layers: boolean | number; policy_layers?: string | null };

/** Says whether a guardrail refuses a row a claim would take: the guardrail's deny, or null. */
export type GuardrailCheck = (row: ClaimedCall) => Promise<LayerDecision | null>;

/**
 * On PostgreSQL, sends the guardrails' version read with the unit's next
 * statement (see `readAhead`), for {@link claimGuardrails}; undefined on SQLite.
 */
export function readGuardrailsAhead(
  tx: Tx,
  workspaceId: string,
): Promise<UserOverlayDigest[]> | undefined {
  return readUserOverlayDigestsAhead(tx, workspaceId);
}

/**
 * The check a claim's unit applies to each row before it takes it. The
 * guardrails are read once per unit, when the first row is weighed; a
 * run's frozen manifest and project root only when a guardrail exists.
 */
export function claimGuardrails(
  tx: Tx,
  workspaceId: string,
  ahead?: Promise<UserOverlayDigest[]>,
): GuardrailCheck {
  let guardrails: Promise<readonly OwnedOverlay[]> | undefined;
  return async (row) => {
    if (row.origin === 'kernel') return null;
    guardrails ??= workspaceGuardrails(tx, workspaceId, ahead);
    const bound = await guardrails;
    if (bound.length === 0) return null;
    const layers =
      row.policy_layers !== undefined
        ? row.policy_layers
        : row.run_has_layers
          ? await policyLayersOfRun(tx, row.run_id)
          : null;
    const said = guardrailDecision({
      toolName: row.resolved_tool_name ?? row.tool_name,
      calledName: resolveToolName(row.tool_name),
      input: JSON.parse(row.tool_input) as unknown,
      frozen: (layers === null ? null : frozenOf({ id: row.run_id, policy_layers: layers })) ?? {},
      guardrails: bound,
      workingDirectory: row.working_directory ?? undefined,
    });
    return said?.verdict === 'deny' ? said : null;
  };
}

/** What the row's decision records once a guardrail refused it at a claim. */
function refusedDecision(row: TaskTable, refusal: LayerDecision, detail: string): string {
  const decided: Decision =
    row.decision === null
      ? { outcome: 'granted', granted_by: null, error: null, matched: [], tool_name: row.tool_name }
      : (JSON.parse(row.decision) as Decision);
  return JSON.stringify({
    ...decided,
    outcome: 'denied',
    granted_by: null,
    error: { code: 'approval_denied', detail },
    layer: refusal.layer,
    layers: [...(decided.layers ?? []), refusal],
  } satisfies Decision);
}

/**
 * Fails a runnable row a claim found refused by a guardrail, in a unit of its
 * own that locks the run first (as every verb that settles a run does); see
 * {@link refuseIfGuarded}. Returns the guardrail's reason, or null when the
 * row was claimed, moved or lifted from the guardrail meanwhile, or its run ended.
 */
export async function refuseAtClaim(
  ctx: KernelContext,
  address: { workspaceId: string; runId: string; key: string },
): Promise<string | null> {
  return ctx.store.transaction(async (tx) => {
    const run = await lockRunIfAny(tx, address.workspaceId, address.runId);
    if (run?.state !== 'running') return null;
    const row = await findTask(tx, run.id, address.key);
    if (row?.state !== 'runnable') return null;
    return refuseIfGuarded(ctx, tx, { run, row });
  });
}

/**
 * Weighs a runnable row against the workspace's guardrails as they stand, in
 * the caller's unit (which holds the run's lock), and fails it when one denies
 * it: `approval_denied` with the guardrail's reason, on `task.denied`, and the
 * run goes on (the model reads the refusal). For every way a granted call is
 * handed out to run: an executor's claim, and an agent taking its own call.
 * Returns the reason, or null when no guardrail denies it (nothing written).
 */
export async function refuseIfGuarded(
  ctx: KernelContext,
  tx: Tx,
  options: { run: RunTable; row: TaskTable },
): Promise<string | null> {
  const { run, row } = options;
  const refusal = await claimGuardrails(
    tx,
    run.workspace_id,
  )({
    ...row,
    run_has_layers: run.policy_layers !== null,
    policy_layers: run.policy_layers,
  });
  if (refusal === null) return null;
  const detail = asKeptText(refusal.detail ?? 'denied by a guardrail');
  const moved = await moveTask(
    tx,
    {
      verb: 'guardrail_refusal',
      run,
      key: row.key,
      to: 'failed',
      from: 'runnable',
      set: {
        error_code: 'approval_denied',
        error_detail: detail,
        decision: refusedDecision(row, refusal, detail),
        deadline_at: null,
      },
      event: {
        type: 'task.denied',
        data: {
          matched: [],
          layer: refusal.layer,
          layers: [refusal],
          error: { code: 'approval_denied', detail },
        },
      },
      principal: RULE_PRINCIPAL,
      settle: { ctx, run },
    },
    { quiet: true },
  );
  return moved ? detail : null;
}
