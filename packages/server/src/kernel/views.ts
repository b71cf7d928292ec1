import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { RunTable, TaskTable } from '../store/schema.js';
import { RUN_STATES } from './run-machine.js';
import { TASK_KINDS, TASK_STATES } from './task-states.js';

const json = z.unknown();

/** Why a run needs a person, and which rows. */
export const AttentionSchema = z.object({
  reason: z.enum(['approval_required', 'failure_hold', 'awaiting_human']),
  blocked_task_keys: z.array(z.string()),
});
/** Why a run needs a person, and which rows. */
export type Attention = z.infer<typeof AttentionSchema>;

/** `{code, detail}` of a failed row or run. */
export const FailureSchema = z.object({ code: z.string(), detail: z.string() });

/** A run as the API shows it. */
export const RunViewSchema = z.object({
  id: z.string(),
  workspace_id: z.string(),
  agent_application_id: z.string().nullable(),
  conversation_id: z.string().nullable(),
  regenerated_from: z.string().nullable(),
  state: z.enum(RUN_STATES),
  approval_mode: z.enum(['bypass', 'ask', 'rules']),
  approval_rules: z.array(json),
  tool_names: z.array(z.string()).nullable(),
  tool_aliases: z.record(z.string(), z.string()),
  lifecycle_hooks: json.nullable(),
  config_version: z.number().int().nullable(),
  provider: z.string(),
  round: z.number().int(),
  /** Stop-hook continuations taken so far. */
  continuations: z.number().int(),
  /** Compaction thresholds frozen on the run (null: none). */
  context_limit_bytes: z.number().int().nullable(),
  context_limit_tokens: z.number().int().nullable(),
  /** Compactions performed so far. */
  compactions: z.number().int(),
  attention: z.array(AttentionSchema),
  final_answer: z.string().nullable(),
  error: FailureSchema.nullable(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
  ended_at: z.number().int().nullable(),
});
/** A run as the API shows it. */
export type RunView = z.infer<typeof RunViewSchema>;

/** A task row as the API shows it. */
export const TaskViewSchema = z.object({
  key: z.string(),
  run_id: z.string(),
  round: z.number().int(),
  origin: z.enum(['model', 'author', 'kernel']),
  kind: z.enum(TASK_KINDS),
  state: z.enum(TASK_STATES),
  tool_call_id: z.string().nullable(),
  tool_name: z.string(),
  tool_input: json,
  effect_profile: json.nullable(),
  decision: json.nullable(),
  on_failure: z.enum(['continue', 'hold']),
  addressee: z.string().nullable(),
  deadline_at: z.number().int().nullable(),
  lease_until: z.number().int().nullable(),
  attempts: z.number().int(),
  result: json.nullable(),
  error: FailureSchema.nullable(),
  decided_by: z.string().nullable(),
  /** A question's prompt (kind `ask`). */
  prompt: z.string().nullable(),
  /** A question's offered answers; null for free text. */
  options: z.array(z.string()).nullable(),
  /** True when a question takes several of its options (an array of them). */
  multi: z.boolean(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
  /** The row's version: an approve may send it (or `If-Match`) and is refused if the row changed since. */
  version: z.string(),
});
/** A task row as the API shows it. */
export type TaskView = z.infer<typeof TaskViewSchema>;

/** One lifecycle event as the feed and the events route show it. */
export const EventViewSchema = z.object({
  seq: z.number().int(),
  run_id: z.string(),
  task_key: z.string().nullable(),
  type: z.string(),
  data: z.record(z.string(), json),
  principal: z.string().nullable(),
  created_at: z.number().int(),
});
/** One lifecycle event. */
export type EventView = z.infer<typeof EventViewSchema>;

function parse(text: string | null): unknown {
  return text === null ? null : JSON.parse(text);
}

/** Maps a stored run to its view. */
export function runView(row: RunTable): RunView {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    agent_application_id: row.agent_application_id,
    conversation_id: row.conversation_id,
    regenerated_from: row.regenerated_from,
    state: row.state,
    approval_mode: row.approval_mode,
    approval_rules: JSON.parse(row.approval_rules) as unknown[],
    tool_names: parse(row.tool_names) as string[] | null,
    tool_aliases: JSON.parse(row.tool_aliases) as Record<string, string>,
    lifecycle_hooks: parse(row.lifecycle_hooks),
    config_version: row.config_version,
    provider: (JSON.parse(row.provider) as { kind: string }).kind,
    round: row.round,
    continuations: row.continuations,
    context_limit_bytes: row.context_limit_bytes,
    context_limit_tokens: row.context_limit_tokens,
    compactions: row.compactions,
    attention: (parse(row.attention) as Attention[] | null) ?? [],
    final_answer: row.final_answer,
    error: row.error_code ? { code: row.error_code, detail: row.error_detail ?? '' } : null,
    created_at: row.created_at,
    updated_at: row.updated_at,
    ended_at: row.ended_at,
  };
}

/** Maps a stored task row to its view. */
export function taskView(row: TaskTable): TaskView {
  return {
    key: row.key,
    run_id: row.run_id,
    round: row.round,
    origin: row.origin,
    kind: row.kind,
    state: row.state,
    tool_call_id: row.tool_call_id,
    tool_name: row.tool_name,
    tool_input: JSON.parse(row.tool_input),
    effect_profile: parse(row.effect_profile),
    decision: parse(row.decision),
    on_failure: row.on_failure,
    addressee: row.addressee,
    deadline_at: row.deadline_at,
    lease_until: row.lease_until,
    attempts: row.attempts,
    result: parse(row.result),
    error: row.error_code ? { code: row.error_code, detail: row.error_detail ?? '' } : null,
    decided_by: row.decided_by,
    prompt: row.prompt,
    options: parse(row.options) as string[] | null,
    multi: row.multi === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
    version: taskVersion(row),
  };
}

/**
 * A task row's version: a digest of every column a transition, clock or
 * claim changes, so any change since a person read the row gives another one.
 */
export function taskVersion(row: TaskTable): string {
  const moving = [
    row.state,
    row.updated_at,
    row.deadline_at,
    row.addressee,
    row.attempts,
    row.claim_id,
    row.decided_by,
    row.decision,
    row.effect_profile,
  ];
  return createHash('sha256').update(JSON.stringify(moving)).digest('hex').slice(0, 20);
}

/** Maps a stored event to its view. */
export function eventView(row: {
  seq: number;
  run_id: string;
  task_key: string | null;
  type: string;
  data: string;
  principal: string | null;
  created_at: number;
}): EventView {
  return {
    seq: row.seq,
    run_id: row.run_id,
    task_key: row.task_key,
    type: row.type,
    data: JSON.parse(row.data) as Record<string, unknown>,
    principal: row.principal,
    created_at: row.created_at,
  };
}
