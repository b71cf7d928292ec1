import { decide, type Policy, validateRuleList } from '@airlock/core';
import type { RunTable, TaskTable } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import type { KernelContext } from './context.js';
import { AirlockError } from './errors.js';
import { touchRun } from './run-state.js';

const policies = new Map<string, Policy>();
const POLICY_CACHE_LIMIT = 2000;

/**
 * The compiled policy frozen on a run (cached per run; the frozen JSON never changes).
 * @throws AirlockError invalid_configuration when the frozen rules no longer validate.
 */
export function policyForRun(
  run: Pick<RunTable, 'id' | 'approval_rules' | 'tool_aliases'>,
): Policy {
  const cached = policies.get(run.id);
  if (cached) return cached;
  const validated = validateRuleList(JSON.parse(run.approval_rules), {
    toolAliases: JSON.parse(run.tool_aliases) as Record<string, string>,
  });
  if (!validated.ok) {
    throw new AirlockError(
      'invalid_configuration',
      'the rules frozen on this run do not validate',
      validated.problems,
    );
  }
  if (policies.size >= POLICY_CACHE_LIMIT) policies.clear();
  policies.set(run.id, validated.value);
  return validated.value;
}

/** A tool call arriving at the approval stage. */
export interface IncomingCall {
  origin: 'model' | 'author' | 'kernel';
  toolName: string;
  toolInput: unknown;
  toolCallId: string | null;
  onFailure: 'continue' | 'hold';
  round: number;
  principal: string | null;
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
  const policy = policyForRun(run);
  const decision = decide(policy, {
    mode: run.approval_mode,
    origin: call.origin,
    toolName: call.toolName,
    toolInput: call.toolInput,
  });
  const toolNames = run.tool_names ? (JSON.parse(run.tool_names) as string[]) : null;
  if (
    call.origin === 'model' &&
    toolNames &&
    decision.outcome !== 'denied' &&
    !toolNames.includes(decision.tool_name) &&
    !toolNames.includes(call.toolName)
  ) {
    decision.outcome = 'denied';
    decision.granted_by = null;
    decision.error = {
      code: 'approval_denied',
      detail: `${decision.tool_name} is not among this run's tool_names`,
    };
  }
  const row: TaskTable = {
    workspace_id: run.workspace_id,
    run_id: run.id,
    key,
    round: call.round,
    origin: call.origin,
    kind: 'tool',
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
    created_at: tx.now,
    updated_at: tx.now,
  };
  const base = { workspace_id: run.workspace_id, run_id: run.id, task_key: key };
  tx.emit({
    ...base,
    type: 'task.created',
    data: { origin: call.origin, tool_name: call.toolName, round: call.round, state: 'ready' },
    principal: call.principal,
  });
  if (decision.outcome === 'granted') {
    row.state = 'runnable';
    tx.emit({
      ...base,
      type: 'task.granted',
      data: { granted_by: decision.granted_by, matched: decision.matched, state: 'runnable' },
    });
  } else if (decision.outcome === 'parked') {
    row.state = 'needs_approval';
    row.addressee = run.agent_application_id;
    row.deadline_at = tx.now + ctx.parkTtlMs;
    const effectProfile = {
      tool_name: decision.tool_name,
      tool_input: call.toolInput ?? null,
      approval_mode: run.approval_mode,
      origin: call.origin,
      matched_rules: decision.matched.map((index) => ({ index, rule: policy.rules[index] })),
    };
    row.effect_profile = JSON.stringify(effectProfile);
    tx.emit({
      ...base,
      type: 'task.parked',
      data: {
        state: 'needs_approval',
        addressee: row.addressee,
        deadline_at: row.deadline_at,
        effect_profile: effectProfile,
      },
    });
  } else {
    row.state = 'failed';
    row.error_code = 'approval_denied';
    row.error_detail = decision.error?.detail ?? 'denied';
    tx.emit({
      ...base,
      type: 'task.denied',
      data: {
        state: 'failed',
        matched: decision.matched,
        error: { code: row.error_code, detail: row.error_detail },
      },
    });
  }
  await tx.db.insertInto('tasks').values(row).execute();
  return row;
}
