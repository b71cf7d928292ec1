import { hash } from 'node:crypto';
import {
  type Attention,
  AttentionSchema,
  type DeliveryView,
  type EventView,
  EventViewSchema,
  FailureSchema,
  type RunView,
  RunViewSchema,
  type TaskView,
  TaskViewSchema,
} from '@airlock/core';
import { effectProfileFromColumn } from '../store/effect-profile-column.js';
import type { DeliveryRow } from '../store/notifications.js';
import type { RunTable, TaskTable } from '../store/schema.js';

// The wire schemas live in @airlock/core; this file maps stored rows onto them.
export {
  type Attention,
  AttentionSchema,
  type EventView,
  EventViewSchema,
  FailureSchema,
  type RunView,
  RunViewSchema,
  type TaskView,
  TaskViewSchema,
};

function parse(text: string | null): unknown {
  return text === null ? null : JSON.parse(text);
}

/** What a run froze of its policy layers (specs 003/004), as the run view shows it. */
function frozenPolicyView(
  text: string | null,
): Pick<RunView, 'permission_rule_set' | 'tool_manifest' | 'contract_version'> {
  const frozen = (parse(text) ?? {}) as Record<string, unknown>;
  const contract = frozen.action_contract as { contract_version?: unknown } | undefined;
  return {
    permission_rule_set:
      typeof frozen.permission_rule_set === 'string' ? frozen.permission_rule_set : null,
    tool_manifest: Array.isArray(frozen.tool_manifest)
      ? (frozen.tool_manifest as RunView['tool_manifest'])
      : null,
    contract_version:
      typeof contract?.contract_version === 'number' ? contract.contract_version : null,
  };
}

/** The text a run was started with (stored as the model's first message, `{ content }`). */
function goalOf(stored: string): string {
  try {
    const message = JSON.parse(stored) as { content?: unknown };
    return typeof message.content === 'string' ? message.content : stored;
  } catch {
    return stored;
  }
}

/** Maps a stored run to its view. */
export function runView(row: RunTable): RunView {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    agent_application_id: row.agent_application_id,
    conversation_id: row.conversation_id,
    regenerated_from: row.regenerated_from,
    input: goalOf(row.input),
    state: row.state,
    approval_mode: row.approval_mode,
    approval_rules: JSON.parse(row.approval_rules) as RunView['approval_rules'],
    tool_names: parse(row.tool_names) as string[] | null,
    tool_aliases: JSON.parse(row.tool_aliases) as Record<string, string>,
    lifecycle_hooks: parse(row.lifecycle_hooks) as RunView['lifecycle_hooks'],
    config_version: row.config_version,
    ...frozenPolicyView(row.policy_layers),
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
  const toolInput: unknown = JSON.parse(row.tool_input);
  return {
    key: row.key,
    run_id: row.run_id,
    round: row.round,
    origin: row.origin,
    kind: row.kind,
    state: row.state,
    tool_call_id: row.tool_call_id,
    tool_name: row.tool_name,
    tool_input: toolInput as TaskView['tool_input'],
    ...(row.working_directory ? { working_directory: row.working_directory } : {}),
    effect_profile: effectProfileFromColumn(
      row.effect_profile,
      toolInput,
    ) as TaskView['effect_profile'],
    decision: parse(row.decision) as TaskView['decision'],
    on_failure: row.on_failure,
    addressee: row.addressee,
    deadline_at: row.deadline_at,
    lease_until: row.lease_until,
    attempts: row.attempts,
    result: parse(row.result) as TaskView['result'],
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
  return hash('sha256', JSON.stringify(moving), 'hex').slice(0, 20);
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
  } as EventView;
}

/** A notification delivery as the API (and the retention export) shows it: never its payload. */
export function deliveryView(row: DeliveryRow): DeliveryView {
  return {
    id: row.id,
    run_id: row.run_id,
    task_key: row.task_key,
    event_type: row.event_type,
    channel: row.channel,
    channel_kind: row.channel_kind,
    state: row.state,
    attempts: row.attempts,
    next_attempt_at: row.next_attempt_at,
    last_error: row.last_error,
    created_at: row.created_at,
    delivered_at: row.delivered_at,
  };
}
