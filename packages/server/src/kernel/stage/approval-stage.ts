import {
  asKeptText,
  buildEffectProfile,
  type Decision,
  decide,
  explainMatches,
  type Policy,
  patchTextFields,
} from '@airlock/core';
import { readApprovalPolicyAhead } from '../../store/approvals.js';
import { effectProfileColumn } from '../../store/effect-profile-column.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import { dropReadsAlongside, sendAlongsideStageRead } from '../../store/stage-overlays.js';
import type { Tx } from '../../store/store.js';
import { preciseNow } from '../../tracing/call-tracing.js';
import type { KernelContext } from '../context.js';
import { plantRow } from '../machines/move-task.js';
import { touchRun } from '../machines/run-machine.js';
import type { TaskEventOf } from '../machines/task-machine.js';
import { policyActionsOf } from '../verbs/approval-quorum.js';
import { manifestEntry } from './action-contract-layer.js';
import { bindAuthorGrant, countAppenderApproval } from './author-grant.js';
import type { IncomingCall } from './incoming-call.js';
import { refuseUnoffered } from './offered-tools.js';
import { parkApprovals } from './park-approvals.js';
import { applyPolicyLayers, frozenOf } from './policy-layers.js';
import { ASK_TOOL, parseQuestion } from './questions.js';
import { policyForRun } from './run-policy.js';

/** The principal recorded on a decision the approval rules and policy layers made. */
export const RULE_PRINCIPAL = 'policy';

/** The key the next row planted on a run will get. */
export function nextTaskKey(run: Pick<RunTable, 'task_counter'>): string {
  return `t${run.task_counter + 1}`;
}

/**
 * What an approver reads about a parked call: core's effect profile (action
 * tags, targets, the rules that matched with the text they read), plus the
 * origin, the mode under its older name and each matched rule itself.
 */
function effectProfileOf(policy: Policy, run: RunTable, call: IncomingCall, decision: Decision) {
  const toolName = decision.tool_name;
  const toolCall = {
    mode: run.approval_mode,
    origin: call.origin,
    toolName: call.toolName,
    toolInput: call.toolInput,
  };
  const matchedRules = explainMatches(policy, toolCall);
  const declared = manifestEntry(frozenOf(run), toolName);
  const profile = buildEffectProfile({
    toolName,
    toolInput: call.toolInput ?? null,
    mode: run.approval_mode,
    matchedRules,
    commandPointers: declared?.commands ?? [],
    patchFields: patchTextFields(declared),
  });
  return {
    ...profile,
    // The tool's declared risk traits, when the run's manifest declares the tool.
    ...(declared ? { risk_traits: declared.risk_traits } : {}),
    approval_mode: run.approval_mode,
    origin: call.origin,
    matched_rules: profile.matched_rules.map((m) => ({ ...m, rule: policy.rules[m.index] })),
    ...(decision.layer === undefined
      ? {}
      : { decided_by_layer: decision.layer, layers: decision.layers ?? [] }),
  };
}

/**
 * The declared rules' decision of a call under the run's mode, a model's call
 * to a tool its provider never offered it refused ({@link refuseUnoffered}).
 */
function declaredDecision(policy: Policy, run: RunTable, call: IncomingCall): Decision {
  const base = decide(policy, {
    mode: run.approval_mode,
    origin: call.origin,
    toolName: call.toolName,
    toolInput: call.toolInput,
  });
  return refuseUnoffered(run, call, base);
}

/**
 * Sends a parked call's edited input through the approval stage again
 * (declared rules, rule set, contract, schema, classifier), as if the model
 * had composed it: what the stage decides and the effect profile a person
 * reads. An author row's grant by origin stands only where the approval
 * policy lets `decider` (the editor or retrier) alone approve it. Nothing is written.
 */
export async function evaluateEditedCall(
  ctx: KernelContext,
  tx: Tx,
  options: { run: RunTable; row: TaskTable; toolInput: unknown; decider: string },
): Promise<{ decision: Decision; effectProfile: ReturnType<typeof effectProfileOf> }> {
  const { run, row } = options;
  const call: IncomingCall = {
    origin: row.origin,
    toolName: row.tool_name,
    toolInput: options.toolInput,
    toolCallId: row.tool_call_id,
    onFailure: row.on_failure,
    round: row.round,
    principal: null,
    kind: row.kind === 'tool' || row.kind === 'hook' ? row.kind : undefined,
    // Decided again from the directory the agent said it stood in, not the project root.
    workingDirectory: row.working_directory ?? undefined,
  };
  const policy = policyForRun(run);
  const base = declaredDecision(policy, run, call);
  const layered = await applyPolicyLayers({ ctx, tx, run, call, toolName: base.tool_name, base });
  const effectProfile = effectProfileOf(policy, run, call, layered);
  const { decision } = await bindAuthorGrant(tx, run, {
    decision: layered,
    origin: call.origin,
    kind: row.kind,
    calledName: row.tool_name,
    principal: options.decider,
    actionTags: () => policyActionsOf(effectProfile),
  });
  return { decision, effectProfile };
}

/**
 * {@link applyPolicyLayers} for a call being planted. When the declared rules park it, the
 * row will most likely park and read the approval policy (its event's `approvals_required`):
 * on PostgreSQL that read goes out with the layers' overlay read, one round trip fewer per
 * park. It is sent only with a read the stage makes, never left waiting for a statement.
 */
async function layeredWithPolicyAhead(
  given: Parameters<typeof applyPolicyLayers>[0],
): Promise<Decision> {
  const { tx, run } = given;
  if (given.base.outcome !== 'parked' || given.call.origin === 'kernel') {
    return applyPolicyLayers(given);
  }
  sendAlongsideStageRead(tx, () => readApprovalPolicyAhead(tx, run.workspace_id));
  try {
    return await applyPolicyLayers(given);
  } finally {
    dropReadsAlongside(tx);
  }
}

/**
 * Plants a task row for a call and sends it through the approval stage in the
 * same transaction: granted rows become runnable, parked rows rest at
 * needs_approval with the clock armed, refused rows fail approval_denied.
 * The caller holds the run row.
 */
export async function plantToolRow(
  ctx: KernelContext,
  tx: Tx,
  run: RunTable,
  call: IncomingCall,
): Promise<TaskTable> {
  run.task_counter += 1;
  touchRun(tx, run);
  const key = `t${run.task_counter}`;
  const observed = ctx.metrics !== null || ctx.tracing !== null;
  const startedAt = observed ? performance.now() : 0;
  const policy = policyForRun(run);
  const base = declaredDecision(policy, run, call);
  const layered = await layeredWithPolicyAhead({
    ctx,
    tx,
    run,
    call,
    toolName: base.tool_name,
    base,
  });
  const question =
    call.origin !== 'kernel' && (call.kind ?? 'tool') === 'tool' && layered.tool_name === ASK_TOOL
      ? parseQuestion(call.toolInput)
      : null;
  // A question asks a person already; any other grant a member gave themselves (an author row,
  // a call or hook of their own standalone run) answers to the approval policy.
  const { decision, appenderApproval } =
    question === null
      ? await bindAuthorGrant(tx, run, {
          decision: layered,
          origin: call.origin,
          kind: call.kind ?? 'tool',
          calledName: call.toolName,
          // Who asks for the row: its appender, else the run's starter (whose create call granted it).
          principal: call.origin === 'author' ? call.principal : run.created_by,
          actionTags: () => policyActionsOf(effectProfileOf(policy, run, call, layered)),
        })
      : { decision: layered, appenderApproval: null };
  // A question already asks a person: parking it for approval first would ask twice.
  const asks = question !== null && decision.outcome !== 'denied';
  const row: TaskTable = {
    workspace_id: run.workspace_id,
    run_id: run.id,
    key,
    round: call.round,
    origin: call.origin,
    // Its kind from the start, so that task.created names a question as the row does.
    kind: asks ? 'ask' : (call.kind ?? 'tool'),
    state: 'ready',
    tool_call_id: call.toolCallId,
    tool_name: call.toolName,
    resolved_tool_name: decision.tool_name,
    tool_input: JSON.stringify(call.toolInput ?? null),
    effect_profile: null,
    decision: JSON.stringify(decision),
    on_failure: call.onFailure,
    addressee: null,
    deadline_at: null,
    claim_id: null,
    lease_until: null,
    attempts: 0,
    result: null,
    error_code: null,
    error_detail: null,
    decided_by: null,
    prompt: null,
    options: null,
    multi: null,
    resolution_token_hash: null,
    hook_source: call.hookSource ?? null,
    appended_by: call.origin === 'author' ? call.principal : null,
    working_directory: call.workingDirectory ?? null,
    created_at: tx.now,
    updated_at: tx.now,
  };
  const created = {
    data: { origin: call.origin, kind: row.kind, tool_name: call.toolName, round: call.round },
    principal: call.principal,
  };
  let outcome: TaskEventOf<'plant'> & { principal?: string };
  // Shadow contracts and natural-language constraints: non-blocking, on the feed and in what the model reads.
  const reminders =
    decision.reminders && decision.reminders.length > 0 ? { reminders: decision.reminders } : {};
  if (asks) {
    if (typeof question === 'string') {
      row.state = 'failed';
      row.error_code = 'invalid_question';
      row.error_detail = question;
      outcome = {
        type: 'task.failed',
        data: { error: { code: row.error_code, detail: question }, ...reminders },
      };
    } else {
      row.state = 'awaiting_input';
      row.prompt = question.prompt;
      row.options = question.options ? JSON.stringify(question.options) : null;
      row.multi = question.multi ? 1 : 0;
      row.resolution_token_hash = call.resolutionTokenHash ?? null;
      // An authored question is answered by its token holder; nobody else is nudged.
      row.addressee = call.origin === 'author' ? null : run.agent_application_id;
      row.deadline_at = tx.now + ctx.parkTtlMs;
      outcome = {
        type: 'task.asked',
        data: {
          addressee: row.addressee,
          deadline_at: row.deadline_at,
          prompt: question.prompt,
          options: question.options,
          multi: question.multi,
          ...reminders,
        },
      };
    }
  } else if (decision.outcome === 'granted') {
    row.state = 'runnable';
    if (call.runnableDeadlineMs !== undefined) row.deadline_at = tx.now + call.runnableDeadlineMs;
    outcome = {
      type: 'task.granted',
      data: {
        granted_by: decision.granted_by,
        matched: decision.matched,
        ...(decision.layer === undefined ? {} : { layers: decision.layers }),
        ...(row.kind === 'tool' ? {} : { kind: row.kind }),
        ...reminders,
      },
      principal: RULE_PRINCIPAL,
    };
  } else if (decision.outcome === 'parked') {
    row.state = 'needs_approval';
    row.addressee = run.agent_application_id;
    row.deadline_at = tx.now + ctx.parkTtlMs;
    const effectProfile = effectProfileOf(policy, run, call, decision);
    row.effect_profile = effectProfileColumn(effectProfile);
    outcome = {
      type: 'task.parked',
      data: {
        addressee: row.addressee,
        deadline_at: row.deadline_at,
        effect_profile: effectProfile,
        // A reader (the inbox) shows "0 of 2 approvals" (or too few approvers) without a read.
        ...(await parkApprovals(tx, run, row)),
        ...reminders,
      },
      principal: RULE_PRINCIPAL,
    };
  } else {
    row.state = 'failed';
    row.error_code = 'approval_denied';
    // A reason is policy text kept as JSON where declared; as the row's text a NUL (which
    // PostgreSQL refuses) would fail the whole round there, so it is kept as the kernel keeps text.
    row.error_detail = asKeptText(decision.error?.detail ?? 'denied');
    outcome = {
      type: 'task.denied',
      data: {
        matched: decision.matched,
        ...(decision.layer === undefined ? {} : { layer: decision.layer, layers: decision.layers }),
        error: { code: row.error_code, detail: row.error_detail },
        ...reminders,
      },
      principal: RULE_PRINCIPAL,
    };
  }
  if (observed) observeStage(ctx, tx, { row, startedAt, layer: decision.layer });
  await plantRow(tx, run, row, { created, outcome });
  if (appenderApproval) await countAppenderApproval(tx, row, appenderApproval);
  return row;
}

const STAGE_OUTCOMES: Record<string, string> = {
  runnable: 'granted',
  needs_approval: 'parked',
  awaiting_input: 'asked',
};

/** Records the stage's decision of one call once its unit commits: its metrics and its span. */
function observeStage(
  ctx: KernelContext,
  tx: Tx,
  decided: { row: TaskTable; startedAt: number; layer: string | undefined },
): void {
  const { row } = decided;
  const seconds = (performance.now() - decided.startedAt) / 1000;
  const outcome =
    STAGE_OUTCOMES[row.state] ?? (row.error_code === 'approval_denied' ? 'denied' : 'failed');
  const layer = decided.layer ?? 'approval_rules';
  const { metrics, tracing } = ctx;
  if (!metrics && !tracing) return;
  const startedAt = preciseNow() - seconds * 1000;
  // Once committed: a unit that rolls back (a PostgreSQL retry, a refusal at its end) decided nothing.
  tx.afterCommit(() => {
    metrics?.stageSeconds.observe(seconds);
    metrics?.callsDecided.inc({ outcome, layer });
    tracing?.stageDecided(
      { workspaceId: row.workspace_id, runId: row.run_id, key: row.key },
      { startedAt, outcome, layer, toolName: row.resolved_tool_name ?? row.tool_name ?? '' },
    );
  });
}
