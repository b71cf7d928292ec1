// The tracing entry alone: the whole of @airlock/core (zod, the evaluator) would add
// hundreds of milliseconds to every hook process the agent starts.
import { inheritedTraceparent } from '@airlock/core/tracing';
import { toolCheckAgentOf } from '../agents/registry.js';
import type { AgentOutput, AgentProtocol, Reply } from '../agents/types.js';
import { readHookConfig } from './config.js';
import { decide, failClosed } from './decide.js';
import { readTranscriptCalls } from './transcript.js';
import { unreadNote, unreadPayloadEvent } from './unread-payload.js';
import { waitMsProblem } from './wait-limits.js';

/**
 * `decide`, with anything it throws after all a failure to decide: a tool
 * call is refused and any other event passes. The process must not end
 * with an error (exit 2), which Claude Code reads on a `Stop` as "go on" and
 * on a prompt as "erase it".
 */
async function decideOrFail(...args: Parameters<typeof decide>): Promise<Reply> {
  try {
    return await decide(...args);
  } catch (error) {
    return failClosed(args[1], `the hook client failed: ${(error as Error).message}`);
  }
}

/** Options of one hook invocation (the hook entry's flags). */
export interface RunHookOptions {
  protocol: AgentProtocol;
  /** The payload the agent wrote on stdin. */
  input: string;
  /** Why the payload's bytes could not be read as they were sent (not UTF-8): it is not asked about. */
  unreadable?: string | undefined;
  configPath?: string | undefined;
  /**
   * The wait, over the file's `wait_ms`: text is the `--wait-ms` an installed
   * entry passes, held to install's range (see `waitMsProblem`); a number is a
   * program's own choice (tests), which `decide` only requires to be one.
   */
  waitMs?: number | string | undefined;
  defer?: boolean | undefined;
  nativeAsk?: boolean | undefined;
  env?: NodeJS.ProcessEnv | undefined;
}

/**
 * Answers one hook invocation in the agent's own format: reads the
 * payload, asks the kernel, writes the reply. A payload it cannot read is
 * answered in its own event's shape (see `unreadPayloadEvent`): a tool
 * check, or a payload whose event cannot be told, is refused (exit 2, the
 * reason on stderr, which every one of the three agents treats as a
 * refusal); a report of a call that ran, or any other event, passes with a
 * note for the user.
 */
export async function runHook(options: RunHookOptions): Promise<AgentOutput> {
  const { protocol } = options;
  let event: ReturnType<AgentProtocol['parse']>;
  let payload: unknown;
  try {
    if (options.unreadable) throw new Error(options.unreadable);
    payload = JSON.parse(options.input) as unknown;
    event = protocol.parse(payload);
  } catch (error) {
    return unreadAnswer(protocol, { payload, text: options.input, error: error as Error });
  }
  if (event === null) return notHandled(protocol, payload);
  if (event.event === 'stop') {
    // The turn's calls as the agent's transcript has them: the kernel records any no hook saw.
    const ranCalls = readTranscriptCalls(
      protocol.agent,
      (payload as { transcript_path?: unknown }).transcript_path,
    );
    if (ranCalls) event = { ...event, ran_calls: ranCalls };
  }
  let config: ReturnType<typeof readHookConfig>;
  try {
    config = readHookConfig(options.configPath, options.env);
  } catch (error) {
    return protocol.format(event, failClosed(event, (error as Error).message));
  }
  const flag = typeof options.waitMs === 'string' ? options.waitMs : undefined;
  const asked = flag === undefined ? options.waitMs : /^\d+$/.test(flag) ? Number(flag) : flag;
  // A wait past the agent's own hook timeout would let the agent give up on the hook
  // (Codex then runs the call): refuse at once instead.
  const waitProblem = flag === undefined ? null : waitMsProblem(asked, '--wait-ms');
  if (waitProblem) return protocol.format(event, failClosed(event, waitProblem));
  const reply = await decideOrFail(protocol, event, {
    kernel: {
      url: config.url,
      token: config.token,
      // An agent that traces hands its trace context to the hook process (OpenTelemetry's carrier).
      traceparent: inheritedTraceparent(options.env ?? process.env),
    },
    waitMs: (asked as number | undefined) ?? config.waitMs,
    defer: options.defer,
    nativeAsk: options.nativeAsk,
  });
  return protocol.format(event, reply);
}

/** The answer to a payload that could not be read, in its own event's shape. */
function unreadAnswer(
  protocol: AgentProtocol,
  unread: { payload: unknown; text: string; error: Error },
): AgentOutput {
  const why = `Airlock could not read the ${protocol.agent} hook payload: ${unread.error.message}`;
  const seen = unreadPayloadEvent(protocol, unread.payload, unread.text);
  if (seen.kind === 'refuse') return { stdout: '', stderr: `${why}\n`, exitCode: 2 };
  if (seen.kind === 'ignore') return { stdout: '', stderr: `${why}\n`, exitCode: 0 };
  const note = unreadNote(seen.event, why);
  return protocol.format(seen.event, { kind: 'pass', context: null, note });
}

/**
 * The answer to an event this agent's protocol does not handle: nothing, unless it is another
 * agent's tool check (an entry copied from that agent's settings, Gemini CLI's `BeforeTool`
 * running the client for claude-code): its call would run unasked, so it is refused (exit 2).
 */
function notHandled(protocol: AgentProtocol, payload: unknown): AgentOutput {
  const named = (payload as { hook_event_name?: unknown }).hook_event_name;
  if (!toolCheckAgentOf(named)) return { stdout: '', stderr: '', exitCode: 0 };
  const stderr =
    `Airlock could not decide this call, so it was not run: the hook entry runs Airlock's ${protocol.agent} ` +
    `client, and the agent sent another agent's tool check (${named}); ` +
    "install this agent's own entries with airlock hooks install\n";
  return { stdout: '', stderr, exitCode: 2 };
}
