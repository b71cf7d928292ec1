import { z } from 'zod';
import { storableName } from '../protocol/stored-text.js';

/** The execution boundaries a lifecycle hook can run at. */
export const HookEventSchema = z.enum(['turn_start', 'pre_compact', 'post_compact', 'stop']);
export type HookEvent = z.infer<typeof HookEventSchema>;

/** Bounds a hook declaration must respect. */
export const HOOK_TIMEOUT_MS_MAX = 300_000;
export const HOOK_MAX_CONTINUATIONS_MAX = 20;
/** Feedback a stop hook may return: at most this many UTF-8 bytes. */
export const HOOK_FEEDBACK_MAX_BYTES = 16 * 1024;
/** The answer preview a hook sees is cut to this many UTF-8 bytes. */
export const HOOK_OUTPUT_PREVIEW_MAX_BYTES = 4 * 1024;

const timeoutMs = z.number().int().min(1).max(HOOK_TIMEOUT_MS_MAX);
/** The tool a hook runs: a name every store keeps as sent, as a call's. */
const hookTool = storableName(z.string().min(1).max(512));

/** A turn_start, pre_compact or post_compact hook. */
export const LifecycleHookSchema = z.strictObject({
  tool: hookTool,
  timeout_ms: timeoutMs,
});
export type LifecycleHook = z.infer<typeof LifecycleHookSchema>;

/** The stop hook, which also bounds the continuations it may request. */
export const StopHookSchema = z.strictObject({
  tool: hookTool,
  timeout_ms: timeoutMs,
  max_continuations: z.number().int().min(0).max(HOOK_MAX_CONTINUATIONS_MAX),
});
export type StopHook = z.infer<typeof StopHookSchema>;

/** The lifecycle_hooks declaration; omitted events are not enabled. */
export const LifecycleHooksSchema = z.strictObject({
  turn_start: LifecycleHookSchema.optional(),
  pre_compact: LifecycleHookSchema.optional(),
  post_compact: LifecycleHookSchema.optional(),
  stop: StopHookSchema.optional(),
});
export type LifecycleHooks = z.infer<typeof LifecycleHooksSchema>;

/** What a hook's executor tool receives as its input. */
export const HookInputSchema = z.object({
  event: HookEventSchema,
  task_key: z.string(),
  run_public_id: z.string(),
  conversation_public_id: z.string().nullable(),
  output_preview: z.string().optional(),
  output_size_bytes: z.number().int().nonnegative().optional(),
  compaction_trigger: z.string().optional(),
  overshoot_bytes: z.number().int().nonnegative().optional(),
  overshoot_tokens: z.number().int().nonnegative().optional(),
});
export type HookInput = z.infer<typeof HookInputSchema>;

/** A hook's decision, returned in the result's structured_content. */
export const HookResultSchema = z.union([
  z.strictObject({ continue: z.literal(false) }),
  z.strictObject({ continue: z.literal(true), feedback: z.string() }),
]);
export type HookResult = z.infer<typeof HookResultSchema>;
