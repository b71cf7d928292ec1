import { hash } from 'node:crypto';
import {
  type Attention,
  AttentionSchema,
  type EventView,
  EventViewSchema,
  FailureSchema,
  type RunView,
  RunViewSchema,
  type TaskView,
  TaskViewSchema,
} from '@airlock/core';
import type { EventType, RunTable, TaskTable } from '../store/schema.js';

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

type SameUnion<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// The kernel's event tables and the wire must name the same events: a drift is a compile error.
const eventsAgree: SameUnion<EventType, EventView['type']> = true;
void eventsAgree;

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
    approval_rules: JSON.parse(row.approval_rules) as RunView['approval_rules'],
    tool_names: parse(row.tool_names) as string[] | null,
    tool_aliases: JSON.parse(row.tool_aliases) as Record<string, string>,
    lifecycle_hooks: parse(row.lifecycle_hooks) as RunView['lifecycle_hooks'],
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
    tool_input: JSON.parse(row.tool_input) as TaskView['tool_input'],
    effect_profile: parse(row.effect_profile) as TaskView['effect_profile'],
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
