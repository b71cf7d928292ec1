import type { HookedAgent, HookedAnswer, HookedEvent, HookedRanCall } from '@airlock/core';

/** An agent's hook event in the kernel's words (the body of `hooks.event`). */
export interface NeutralEvent {
  agent: HookedAgent;
  session_id: string;
  event: HookedEvent;
  tool_name?: string;
  tool_input?: unknown;
  tool_use_id?: string;
  /** On pre_tool: the agent's working directory for the call (its payload's `cwd`). */
  cwd?: string;
  outcome?: 'succeeded' | 'failed';
  output?: string;
  text?: string;
  trigger?: string;
  answered_by_user?: boolean;
  task_key?: string;
  /** On pre_tool asked again: the run of `task_key`, so the kernel answers about that run's row only. */
  run_id?: string;
  /** On stop: the calls the agent's transcript shows in the turn (read by the hook client). */
  ran_calls?: HookedRanCall[];
  /**
   * The agent's own name for the event (its payload's `hook_event_name`),
   * which its answer must echo: Claude Code refuses a `PostToolUseFailure`
   * answered as `PostToolUse`. Kept on the agent's side: `decide` leaves it
   * out of what the kernel is sent.
   */
  hook_event_name?: string;
}

/** The kernel's answer to one event (the output of `hooks.event`, defined in core). */
export type KernelAnswer = HookedAnswer;

/**
 * What the hook client decided to tell the agent, before it is written in
 * the agent's own format: a call is allowed (with reminders), denied (with
 * the reason the model reads), handed to the agent's own prompt (`ask`) or
 * deferred (Claude Code headless); a stop continues with feedback; or
 * nothing to say (`pass`), with a note for the user.
 */
export type Reply =
  | { kind: 'allow'; context: string | null; updatedInput?: unknown }
  | { kind: 'deny'; reason: string }
  | { kind: 'ask'; reason: string }
  | { kind: 'defer'; reason: string }
  | { kind: 'continue'; feedback: string }
  | { kind: 'pass'; context: string | null; note: string | null };

/** What the hook process writes and how it exits. */
export interface AgentOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** One agent's protocol: its hook payloads in, its answers out. */
export interface AgentProtocol {
  readonly agent: HookedAgent;
  /** The hook events the installer registers, by the agent's own names. */
  readonly hookEvents: readonly string[];
  /** Whether the agent has a native ask (a prompt to its own user) that fails closed. */
  readonly nativeAsk: boolean;
  /** Whether a park can be deferred (the agent's run pauses durably). */
  readonly canDefer: boolean;
  /**
   * Whether an allow can replace the call's input (Claude Code's
   * `updatedInput`); an agent that cannot is refused an edited call instead,
   * with the edit in the reason, so the original never runs.
   */
  readonly updatesInput: boolean;
  /**
   * Reads a hook payload; null for an event Airlock does not handle.
   * @throws Error when the payload is not the agent's (no session id, no event name).
   */
  parse(payload: unknown): NeutralEvent | null;
  /** The kernel's event for one of the agent's hook event names; null for one Airlock does not handle. */
  eventOf(eventName: string): NeutralEvent['event'] | null;
  /** Writes a reply for the event in the agent's own format. */
  format(event: NeutralEvent, reply: Reply): AgentOutput;
}
