import {
  HOOK_OUTPUT_PREVIEW_MAX_BYTES,
  type HookEvent,
  HookEventSchema,
  type HookInput,
  HookInputSchema,
  type HookResult,
  type LifecycleHooks,
  truncateUtf8,
  validateHookResult,
} from '@airlock/core';
import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import { findTaskBySource } from '../../store/tasks.js';
import type { KernelContext } from '../context.js';
import { moveTask } from '../machines/move-task.js';
import { setRunPhase } from '../machines/run-machine.js';
import { refreshAttention } from '../machines/run-state.js';
import { nextTaskKey, plantToolRow } from '../stage/approval-stage.js';

/** The lifecycle hooks frozen on a run (none when it declared none). */
export function hooksOf(run: Pick<RunTable, 'lifecycle_hooks'>): LifecycleHooks {
  return run.lifecycle_hooks ? (JSON.parse(run.lifecycle_hooks) as LifecycleHooks) : {};
}

/** The lifecycle event a hook row serves, read from its `event:source`. */
export function hookEventOf(row: Pick<TaskTable, 'hook_source'>): HookEvent | null {
  const parsed = HookEventSchema.safeParse(row.hook_source?.split(':')[0]);
  return parsed.success ? parsed.data : null;
}

/** What a hook row's event-specific input carries besides the common fields. */
export type HookExtras = Pick<
  HookInput,
  | 'output_preview'
  | 'output_size_bytes'
  | 'compaction_trigger'
  | 'overshoot_bytes'
  | 'overshoot_tokens'
>;

/** The preview and size of an answer a hook observes. */
export function answerExtras(answer: string): HookExtras {
  return {
    output_preview: truncateUtf8(answer, HOOK_OUTPUT_PREVIEW_MAX_BYTES),
    output_size_bytes: Buffer.byteLength(answer, 'utf8'),
  };
}

/**
 * The durable hook row of one event and source: read when it exists (a
 * scheduling retry reuses it), planted otherwise as an ordinary kernel row
 * that crosses the approval stage, with `timeout_ms` armed as its deadline.
 * Returns null when the run declares no hook for the event.
 */
export async function hookRow(
  ctx: KernelContext,
  tx: Tx,
  run: RunTable,
  options: { event: HookEvent; source: string; round: number; extras?: HookExtras },
): Promise<TaskTable | null> {
  const hook = hooksOf(run)[options.event];
  if (!hook) return null;
  const hookSource = `${options.event}:${options.source}`;
  const existing = await findTaskBySource(tx, run.id, hookSource);
  if (existing) return existing;
  const input: HookInput = HookInputSchema.parse({
    event: options.event,
    task_key: nextTaskKey(run),
    run_public_id: run.id,
    conversation_public_id: run.conversation_id,
    ...options.extras,
  });
  const row = await plantToolRow(ctx, tx, run, {
    origin: 'kernel',
    kind: 'hook',
    hookSource,
    toolName: hook.tool,
    toolInput: input,
    toolCallId: null,
    // A hook fails closed: its failure holds the run for a person, never ends it silently.
    onFailure: 'hold',
    round: options.round,
    principal: 'kernel',
    runnableDeadlineMs: hook.timeout_ms,
  });
  return row;
}

/** What a settled hook row says: its decision, still waiting, or failed (the run holds). */
export type HookOutcome =
  | { status: 'passed'; result: HookResult }
  | { status: 'waiting' }
  | { status: 'failed' };

/** Reads a hook row's outcome (its result was checked by core when it was committed). */
export function hookOutcome(row: TaskTable): HookOutcome {
  if (row.state === 'succeeded') {
    const event = hookEventOf(row);
    const committed = row.result === null ? null : (JSON.parse(row.result) as unknown);
    const content = (committed as { structured_content?: unknown } | null)?.structured_content;
    const validated = event ? validateHookResult(event, content) : null;
    if (validated?.ok) return { status: 'passed', result: validated.value };
    return { status: 'failed' };
  }
  if (['failed', 'timed_out', 'canceled'].includes(row.state)) return { status: 'failed' };
  return { status: 'waiting' };
}

/**
 * Checks a committed hook result: `{structured_content}` holding a decision
 * core accepts for the row's event. Returns null when valid, else the failure.
 */
export function checkHookCommit(
  row: Pick<TaskTable, 'hook_source'>,
  result: unknown,
): { code: string; detail: string } | null {
  const event = hookEventOf(row);
  if (!event) return { code: 'invalid_hook_result', detail: 'the row names no lifecycle event' };
  if (typeof result !== 'object' || result === null || !('structured_content' in result)) {
    return {
      code: 'invalid_hook_result',
      detail: 'a hook result is {"structured_content": {"continue": ...}}',
    };
  }
  const validated = validateHookResult(
    event,
    (result as { structured_content: unknown }).structured_content,
  );
  if (validated.ok) return null;
  const detail = validated.problems
    .map((problem) => `${problem.pointer || '/'}: ${problem.message}`)
    .join('; ');
  return { code: 'invalid_hook_result', detail };
}

/**
 * Fails a hook row that succeeded but whose decision the kernel cannot
 * follow (a continuation past the allowance, or with no model round to
 * inherit): a visible failed task and a hold, never an accepted ending.
 */
export async function failHookRow(
  tx: Tx,
  run: RunTable,
  row: TaskTable,
  error: { code: string; detail: string },
): Promise<void> {
  await moveTask(tx, {
    verb: 'fail_hook',
    run,
    key: row.key,
    to: 'failed',
    set: { error_code: error.code, error_detail: error.detail },
    event: { type: 'task.failed', data: { error } },
    principal: 'kernel',
  });
  await waitForHook(tx, run);
}

/** Rests the run on its hook row: the row's settle moves it on again. */
export async function waitForHook(tx: Tx, run: RunTable): Promise<void> {
  setRunPhase(tx, run, 'wait_for_kernel_row');
  await refreshAttention(tx, run);
}
