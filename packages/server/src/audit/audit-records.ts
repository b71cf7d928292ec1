import {
  type AuditRecord,
  type Decision,
  type PolicyChange,
  PolicyChangeSchema,
} from '@airlock/core';
import type { RunEventTable, TaskTable } from '../store/schema.js';

// The audit record crosses the wire (GET .../audit), so its schema lives in core.
export {
  AuditLayerSchema,
  type AuditRecord,
  AuditRecordSchema,
  DeciderSchema,
} from '@airlock/core';

/** The event types the audit trail reads; every other event is not a decision. */
export const AUDIT_EVENT_TYPES = [
  'task.granted',
  'task.parked',
  'task.denied',
  'task.approved',
  'task.approval_added',
  'task.edited',
  'task.resolved',
  'task.retried',
  'task.expired',
  'task.canceled',
  'task.readdressed',
  'task.succeeded',
  'task.failed',
  'run.continued',
  'run.unstaged_call',
  'run.completed',
  'run.canceled',
  'run.failed',
  'policy.changed',
] as const;

/** The task columns an audit record reads beside its event. */
export type AuditTask = Pick<TaskTable, 'kind' | 'tool_name' | 'decision'>;

const RULE_DECISIONS: Record<string, string> = {
  'task.granted': 'granted',
  'task.parked': 'parked',
};

/** The fields of a layer's rule reference that are set, for its audit line. */
function pick<T extends object, K extends keyof T>(value: T | null | undefined, keys: K[]) {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (value?.[key] !== undefined) out[key] = value[key];
  return out;
}

/** Whether a principal is someone who acted: a member, an agent, or the operator at the host's command line. */
function isPerson(principal: string | null): boolean {
  return principal !== null && /^(member|agent|operator):/.test(principal);
}

function parseDecision(text: string | null): Decision | null {
  if (!text) return null;
  try {
    return JSON.parse(text) as Decision;
  } catch {
    return null;
  }
}

function errorDetail(data: Record<string, unknown>): string | null {
  const error = data.error as { code?: string; detail?: string } | undefined;
  return error ? `${error.code ?? ''}: ${error.detail ?? ''}` : null;
}

/**
 * The audit record an event stands for, or null when it decides nothing
 * (a tool row's own success or failure, a claim, a round starting).
 */
export function auditRecord(event: RunEventTable, found: AuditTask | null): AuditRecord | null {
  const { pruned_task: prunedTask, ...data } = JSON.parse(event.data) as Record<string, unknown>;
  // A pruned run's task row is gone; retention stamped what it said on the event (kernel/retention/retention.ts).
  const task = found ?? ((prunedTask as AuditTask | undefined) || null);
  const base = {
    seq: event.seq,
    at: event.created_at,
    run_id: event.run_id,
    task_key: event.task_key,
    event: event.type,
    tool_name: task?.tool_name ?? null,
    granted_by: null,
    layer: null,
    rule_indices: [] as number[],
    layers: [] as AuditRecord['layers'],
    detail: null,
    policy: null,
  };
  const byRule = (decision: string): AuditRecord => {
    const decided = parseDecision(task?.decision ?? null);
    return {
      ...base,
      decision,
      decider: 'rule',
      principal: event.principal ?? 'policy',
      granted_by: decided?.granted_by ?? null,
      layer: decided?.layer ?? 'approval_rules',
      rule_indices: decided?.matched ?? [],
      layers: (decided?.layers ?? []).map((layer) => ({
        layer: layer.layer,
        verdict: layer.verdict,
        rule_index: layer.rule?.index ?? null,
        ...pick(layer.rule, ['list', 'contract_version', 'rule_set', 'scope', 'baseline_check']),
        detail: layer.detail,
      })),
      // A park has no error: what the person read is the deciding layer's text.
      detail:
        decided?.error?.detail ??
        decided?.layers?.find((layer) => layer.layer === decided.layer)?.detail ??
        null,
    };
  };
  const by = (decision: string, decider: AuditRecord['decider'], detail: string | null = null) => ({
    ...base,
    decision,
    decider,
    principal: event.principal ?? 'kernel',
    detail,
  });
  const type = event.type;
  if (type === 'policy.changed') {
    const { detail, ...change } = data as PolicyChange & { detail: string };
    const parsed = PolicyChangeSchema.safeParse(change);
    return {
      ...by(change.change, isPerson(event.principal) ? 'person' : 'kernel', detail ?? null),
      policy: parsed.success ? parsed.data : null,
    };
  }
  if (RULE_DECISIONS[type]) return byRule(RULE_DECISIONS[type]);
  if (type === 'task.denied') {
    return isPerson(event.principal) ? by('denied', 'person', errorDetail(data)) : byRule('denied');
  }
  if (type === 'task.approved') return by('approved', 'person');
  if (type === 'task.approval_added') {
    return by('approval_added', 'person', `${data.received} of ${data.required} approvals`);
  }
  if (type === 'task.edited')
    return by('edited', 'person', JSON.stringify(data.tool_input ?? null));
  if (type === 'task.retried') return by('retried', 'person');
  if (type === 'task.resolved') {
    return by('answered', 'person', typeof data.outcome === 'string' ? data.outcome : null);
  }
  if (type === 'task.expired') return by('expired', 'clock', errorDetail(data));
  if (type === 'task.readdressed') return by('readdressed', 'kernel');
  if (type === 'task.canceled') {
    return by('canceled', isPerson(event.principal) ? 'person' : 'kernel', errorDetail(data));
  }
  if ((type === 'task.succeeded' || type === 'task.failed') && task?.kind === 'hook') {
    return by(type === 'task.succeeded' ? 'hook_passed' : 'hook_failed', 'hook', errorDetail(data));
  }
  if (type === 'run.continued') return by('continued', 'hook');
  if (type === 'run.unstaged_call') {
    // No layer decided it: the agent's hook reported a call it had run without asking, or its
    // transcript showed one at the turn's stop (whose result it may not have held yet).
    const outcome = typeof data.outcome === 'string' ? data.outcome : 'outcome unknown';
    return {
      ...by('ran_unstaged', 'hook', `${String(data.agent)} ran it with no hook asking: ${outcome}`),
      tool_name: typeof data.tool_name === 'string' ? data.tool_name : null,
    };
  }
  if (type === 'run.completed' || type === 'run.canceled' || type === 'run.failed') {
    const decider = isPerson(event.principal) ? 'person' : 'kernel';
    return by(type.slice('run.'.length), decider, errorDetail(data));
  }
  return null;
}
