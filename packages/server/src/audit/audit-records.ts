import type { Decision } from '@airlock/core';
import { z } from 'zod';
import type { RunEventTable, TaskTable } from '../store/schema.js';

/** Who (or what) made a decision. */
export const DeciderSchema = z.enum(['rule', 'person', 'clock', 'hook', 'kernel']);

/** What one policy layer said about a decided call, with the rule's index in that layer. */
export const AuditLayerSchema = z.object({
  layer: z.string(),
  verdict: z.string(),
  rule_index: z.number().int().nullable(),
});

/** One decision of the audit trail: a line of `GET .../audit` and of `airlock audit export`. */
export const AuditRecordSchema = z.object({
  /** The event's sequence number in its workspace (the export's cursor). */
  seq: z.number().int(),
  /** When it was decided, epoch milliseconds. */
  at: z.number(),
  run_id: z.string(),
  task_key: z.string().nullable(),
  /** The lifecycle event that records the decision, e.g. `task.approved`. */
  event: z.string(),
  /** What was decided, e.g. `granted`, `parked`, `denied`, `approved`, `expired`. */
  decision: z.string(),
  decider: DeciderSchema,
  /** The deciding principal: `member:cred_...`, `policy`, `kernel`, `executor:cred_...`. */
  principal: z.string(),
  tool_name: z.string().nullable(),
  /** For a rule decision: `rule`, `mode` or `origin` granted it; null otherwise. */
  granted_by: z.string().nullable(),
  /** The deciding policy layer of a rule decision (`approval_rules` when no other applied). */
  layer: z.string().nullable(),
  /** 0-based indices of the declared approval rules that matched (rule decisions only). */
  rule_indices: z.array(z.number().int()),
  /** Every layer that applied to a rule decision, each with its deciding rule's index. */
  layers: z.array(AuditLayerSchema),
  /** A refusal's reason, a failure's detail, or a resolution's outcome. */
  detail: z.string().nullable(),
});

/** An audit record. */
export type AuditRecord = z.infer<typeof AuditRecordSchema>;

/** The event types the audit trail reads; every other event is not a decision. */
export const AUDIT_EVENT_TYPES = [
  'task.granted',
  'task.parked',
  'task.denied',
  'task.approved',
  'task.resolved',
  'task.retried',
  'task.expired',
  'task.canceled',
  'task.readdressed',
  'task.succeeded',
  'task.failed',
  'run.continued',
  'run.completed',
  'run.canceled',
  'run.failed',
] as const;

/** The task columns an audit record reads beside its event. */
export type AuditTask = Pick<TaskTable, 'kind' | 'tool_name' | 'decision'>;

const RULE_DECISIONS: Record<string, string> = {
  'task.granted': 'granted',
  'task.parked': 'parked',
};

function isPerson(principal: string | null): boolean {
  return principal !== null && /^(member|agent):/.test(principal);
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
export function auditRecord(event: RunEventTable, task: AuditTask | null): AuditRecord | null {
  const data = JSON.parse(event.data) as Record<string, unknown>;
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
      })),
      detail: decided?.error?.detail ?? null,
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
  if (RULE_DECISIONS[type]) return byRule(RULE_DECISIONS[type]);
  if (type === 'task.denied') {
    return isPerson(event.principal) ? by('denied', 'person', errorDetail(data)) : byRule('denied');
  }
  if (type === 'task.approved') return by('approved', 'person');
  if (type === 'task.retried') return by('retried', 'person');
  if (type === 'task.resolved') {
    return by('answered', 'person', typeof data.outcome === 'string' ? data.outcome : null);
  }
  if (type === 'task.expired') return by('expired', 'clock', errorDetail(data));
  if (type === 'task.readdressed') return by('readdressed', 'kernel');
  if (type === 'task.canceled') {
    return by('canceled', isPerson(event.principal) ? 'person' : 'kernel');
  }
  if ((type === 'task.succeeded' || type === 'task.failed') && task?.kind === 'hook') {
    return by(type === 'task.succeeded' ? 'hook_passed' : 'hook_failed', 'hook', errorDetail(data));
  }
  if (type === 'run.continued') return by('continued', 'hook');
  if (type === 'run.completed' || type === 'run.canceled' || type === 'run.failed') {
    const decider = isPerson(event.principal) ? 'person' : 'kernel';
    return by(type.slice('run.'.length), decider, errorDetail(data));
  }
  return null;
}
