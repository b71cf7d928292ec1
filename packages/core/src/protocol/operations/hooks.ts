import { z } from 'zod';
import { IdSchema } from '../inputs.js';
import { defineContract, type OperationOutput } from '../operation.js';
import { JsonValueSchema } from '../registry.js';
import { operationRoute } from '../routes.js';
import { keptText, storableName } from '../stored-text.js';
import { TaskStateSchema } from '../views.js';

/** The coding agents whose hooks Airlock answers. */
export const HOOKED_AGENTS = ['claude-code', 'codex', 'gemini'] as const;

/** A coding agent whose hooks Airlock answers. */
export type HookedAgent = (typeof HOOKED_AGENTS)[number];

/**
 * The agent frameworks whose per-call approval hook Airlock answers through
 * `@airlock/sdk`'s adapters: their loop runs in the application, like a
 * coding agent's, so their calls cross the stage as a hooked session's.
 */
export const HOOKED_FRAMEWORKS = ['ai-sdk', 'openai-agents', 'langgraph'] as const;

/** An agent framework whose approval hook Airlock answers. */
export type HookedFramework = (typeof HOOKED_FRAMEWORKS)[number];

/** Whose loop a hooked session runs: a coding agent's or a framework's. */
export type HookedLoop = HookedAgent | HookedFramework;

/**
 * What happened in a hooked session, in the agent-neutral words of the
 * kernel: a turn started, a call is about to run or ran, the agent wants to
 * stop, or it is about to compact its context.
 */
export const HOOKED_EVENTS = [
  'session_start',
  'turn_start',
  'pre_tool',
  'post_tool',
  'stop',
  'pre_compact',
] as const;

/** One event of a hooked session. */
export type HookedEvent = (typeof HOOKED_EVENTS)[number];

/**
 * What the kernel says about an event: `allow` or `deny` a call, `wait` (a
 * person or a lifecycle hook has not decided yet: ask again with the
 * `task_key`), `continue` (a stop hook asks for another round, with the
 * feedback as `reason`), or `ack` (nothing to decide).
 */
export const HOOKED_VERDICTS = ['allow', 'deny', 'wait', 'continue', 'ack'] as const;

/** The kernel's answer to one event. */
export type HookedVerdict = (typeof HOOKED_VERDICTS)[number];

/** The largest output of a call a `post_tool` event records (bytes of UTF-8). */
export const HOOKED_OUTPUT_MAX_BYTES = 16_384;

/** The longest working directory (`cwd`) a pre_tool event may name, in UTF-16 code units (PATH_MAX). */
export const HOOKED_CWD_MAX = 4096;

/** Most calls one `stop` event lists from the agent's transcript (`ran_calls`). */
export const HOOKED_RAN_CALLS_MAX = 500;

/**
 * A call the agent's own transcript shows it ran in the turn, as the hook
 * client on the agent's machine read it at `stop`: the kernel records each
 * one no hook asked about.
 */
export const RanCallSchema = z.strictObject({
  tool_use_id: storableName(z.string().min(1).max(200)),
  tool_name: storableName(z.string().min(1).max(512)),
  /** Unknown when the transcript holds the call but not yet its result. */
  outcome: z.enum(['succeeded', 'failed']).optional(),
  output: keptText(z.string().max(HOOKED_OUTPUT_MAX_BYTES)).optional(),
  /**
   * The call's input, where the agent's hooks carry no call id (Gemini CLI):
   * the kernel matches the call to a row of the turn by its tool and input.
   */
  tool_input: JsonValueSchema.optional(),
});

/** A call the agent's transcript shows it ran (see {@link RanCallSchema}). */
export type HookedRanCall = z.infer<typeof RanCallSchema>;

/**
 * The largest hook event the kernel reads whatever its body limit: a
 * `PreToolUse` of a file the agent writes carries the whole file, and a
 * `PostToolUse` the file again or a tool's long output (of which the kernel
 * keeps 16 KiB). Past it, REST reads a hook event up to 64 MiB with each long
 * string cut to its start: a report lands with a note that it was cut, and a
 * check is refused, since a cut command is not the one that would run.
 */
export const HOOK_BODY_BYTES = 16 * 1024 * 1024;

/** POST /agent_api/v1/hooks/events: one event of a coding agent's session. */
export const hookEventContract = defineContract({
  bodyLimitFloor: HOOK_BODY_BYTES,
  ...operationRoute('hooks.event'),
  summary:
    "Record one event of a hooked session (Claude Code, Codex, Gemini CLI, or an agent framework through the SDK's adapters); a pre_tool call crosses the approval stage as a model row",
  planes: ['agent'],
  input: z.strictObject({
    agent: z.enum([...HOOKED_AGENTS, ...HOOKED_FRAMEWORKS]),
    /** The agent's own session id: one conversation per session. */
    session_id: IdSchema,
    event: z.enum(HOOKED_EVENTS),
    /** Set when asking again about a row the kernel named (a wait, a retry after a deadline). */
    task_key: storableName(
      z.string().min(1).max(40),
      'a task key holds no NUL (U+0000) and no lone surrogate',
    ).optional(),
    /**
     * For pre_tool asked again, with `task_key`: the run the kernel named
     * with that key. The kernel then answers about that run's row only: a
     * turn that ended meanwhile answers from its own row, and the session's
     * new turn's row under the same key is not granted to this call.
     */
    run_id: IdSchema.optional(),
    /**
     * For pre_tool: only read what became of the call asked about (by
     * `tool_use_id`, or `task_key`), taking nothing. A framework adapter's
     * `resume` reads a person's decision this way, so the single-use grant is
     * left for the check of the process that runs the call. `allow` with
     * `task_state` `runnable` is a call decided to run whose grant is still to
     * take; `claimed`, one already granted to a check; `succeeded`, one that ran.
     * A call with no row is `task_not_found`: a look never plants one.
     */
    look: z.boolean().optional(),
    tool_name: storableName(z.string().min(1).max(512)).optional(),
    tool_input: JsonValueSchema.optional(),
    /** The agent's id for the call, where it has one (Claude Code, Codex). */
    tool_use_id: storableName(z.string().min(1).max(200)).optional(),
    /**
     * For pre_tool: the agent's working directory when it makes the call (its
     * payload's `cwd`; Claude Code's Bash keeps a `cd` between calls). Relative
     * paths and shell words are read from it; one outside the project root, or
     * not absolute, cannot be placed, so a deny or ask path rule asks.
     */
    cwd: storableName(z.string().min(1).max(HOOKED_CWD_MAX)).optional(),
    /** For post_tool: whether the call succeeded, and what it printed (cut to 16 KiB). */
    outcome: z.enum(['succeeded', 'failed']).optional(),
    output: keptText(z.string().max(1_000_000)).optional(),
    /** For turn_start: the user's prompt. For stop: the agent's last message. */
    text: keptText(z.string().max(1_000_000)).optional(),
    /** For pre_compact: what triggered it (`auto`, `manual`). */
    trigger: storableName(z.string().max(40)).optional(),
    /** For post_tool: the agent's user answered the agent's own prompt for this call. */
    answered_by_user: z.boolean().optional(),
    /**
     * For stop: the calls the agent's transcript shows it ran in this turn
     * (read by the hook client on the agent's machine); the kernel records
     * the ones no hook asked about, once.
     */
    ran_calls: z.array(RanCallSchema).max(HOOKED_RAN_CALLS_MAX).optional(),
  }),
  output: z.object({
    verdict: z.enum(HOOKED_VERDICTS),
    /** Why (a refusal's detail, a stop hook's feedback, a wait's reason); null when none. */
    reason: z.string().nullable(),
    run_id: z.string().nullable(),
    conversation_id: z.string(),
    /** The row the verdict is about (a call's, or a lifecycle hook's), null when none. */
    task_key: z.string().nullable(),
    task_state: TaskStateSchema.nullable(),
    /** A parked call waits for a person because an action contract's requires_user matched. */
    requires_user: z.boolean(),
    /** Non-blocking reminders for the model (shadow mode, constraints). */
    reminders: z.array(z.string()),
    /** On an allow of a call a person edited before approving it: the input the agent runs instead. */
    updated_input: JsonValueSchema.optional(),
  }),
  errors: [
    'no_profile_configuration',
    'run_busy',
    'task_not_found',
    'invalid_configuration',
    'call_mismatch',
    'not_claimable',
  ],
});

/**
 * The kernel's answer to one hooked-session event (the output of
 * `hooks.event`): built by the kernel, read by the hook clients.
 */
export type HookedAnswer = OperationOutput<typeof hookEventContract>;

/** A hook URL's options: `default`, `wait-N` (ms a park is waited for) or `wait-N-defer`. */
const HookOptionsSchema = z.string().regex(/^(default|wait-\d{1,6}(-defer)?)$/);

/**
 * An agent's hook answered in its own shape by the kernel: the body is the
 * agent's hook payload as it sends it, the answer what the agent reads on a
 * command hook's stdout (exit 0) or an HTTP hook's response.
 */
function nativeHookContract<
  const R extends { readonly name: string; readonly method: 'POST'; readonly path: string },
>(route: R, summary: string) {
  return defineContract({
    ...route,
    summary,
    bodyLimitFloor: HOOK_BODY_BYTES,
    planes: ['agent'],
    input: z.looseObject({
      hook_options: HookOptionsSchema,
      session_id: IdSchema,
      hook_event_name: z.string().min(1).max(100),
    }),
    output: z.record(z.string(), JsonValueSchema),
    errors: [],
  });
}

/**
 * POST /agent_api/v1/hooks/claude-code/{hook_options}: Claude Code's HTTP
 * hook, answered in its own shape by the kernel (no process starts per
 * call). The body is Claude Code's hook payload as it sends it;
 * `hook_options` is `default`, `wait-N` (how long a park is waited for, in
 * ms) or `wait-N-defer` (a park answers `defer`: headless runs).
 */
export const claudeCodeHookContract = nativeHookContract(
  operationRoute('hooks.claudeCode'),
  "Answer Claude Code's HTTP hook in its own format (PreToolUse permissionDecision, Stop decision), waiting bounded for a person",
);

/**
 * POST /agent_api/v1/hooks/codex/{hook_options}: a Codex CLI hook event,
 * answered in the JSON its command hooks print. What the shell hook client
 * (`airlock-hook.sh`) posts, so that no Node.js process starts per call.
 */
export const codexHookContract = nativeHookContract(
  operationRoute('hooks.codex'),
  "Answer a Codex CLI hook event in its own format (a command hook's stdout), waiting bounded for a person",
);

/**
 * POST /agent_api/v1/hooks/gemini/{hook_options}: a Gemini CLI hook event,
 * answered in the JSON its command hooks print (`decision`, `reason`). What
 * the shell hook client (`airlock-hook.sh`) posts.
 */
export const geminiHookContract = nativeHookContract(
  operationRoute('hooks.gemini'),
  "Answer a Gemini CLI hook event in its own format (a command hook's stdout), waiting bounded for a person",
);
