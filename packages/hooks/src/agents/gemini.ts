import { eventNamed, type PayloadShape, parseHookPayload } from './parse-event.js';
import { json, outputText } from './payload.js';
import type { AgentOutput, AgentProtocol, NeutralEvent, Reply } from './types.js';

const EVENTS: Record<string, NeutralEvent['event']> = {
  SessionStart: 'session_start',
  BeforeAgent: 'turn_start',
  BeforeTool: 'pre_tool',
  AfterTool: 'post_tool',
  AfterAgent: 'stop',
  PreCompress: 'pre_compact',
};

function failed(response: unknown): boolean {
  return (
    typeof response === 'object' &&
    response !== null &&
    (response as { error?: unknown }).error !== undefined &&
    (response as { error?: unknown }).error !== null
  );
}

/** The line Gemini CLI's shell tool adds for a command that exited with another code than 0. */
const SHELL_EXIT_CODE = /^Exit Code: (-?\d+)$/;

/** The lines the shell tool writes after `Exit Code:`, each only when it has something to say. */
const AFTER_EXIT_CODE = /^(Signal|Background PIDs|Process Group PGID): /;

/**
 * Whether a Gemini CLI `run_shell_command` output says the command exited
 * with a code other than 0 (the tool itself still reports success). The tool
 * writes `Output: …`, then `Error: …`, `Exit Code: N`, `Signal: …`,
 * `Background PIDs: …` and `Process Group PGID: N` where they apply, the
 * whole wrapped in `<untrusted_context>`: only an `Exit Code:` line among
 * those last lines is the tool's, never one the command printed.
 */
export function shellExitFailed(output: string): boolean {
  const lines = output.split('\n');
  let end = lines.length;
  const closing = (line: string) => line.trim() === '' || line === '</untrusted_context>';
  while (end > 0 && closing(lines[end - 1] as string)) end -= 1;
  while (end > 0 && AFTER_EXIT_CODE.test(lines[end - 1] as string)) end -= 1;
  const code = SHELL_EXIT_CODE.exec(lines[end - 1] ?? '')?.[1];
  return code !== undefined && code !== '0';
}

const SHAPE: PayloadShape = {
  events: EVENTS,
  stopTextField: 'prompt_response',
  // The shell tool runs in `dir_path` (`directory` in older versions), read from the project root.
  callDirectory(toolName, toolInput) {
    if (toolName !== 'run_shell_command' || typeof toolInput !== 'object' || toolInput === null) {
      return undefined;
    }
    const input = toolInput as { dir_path?: unknown; directory?: unknown };
    const named = input.dir_path ?? input.directory;
    return typeof named === 'string' ? named : undefined;
  },
  postTool(body) {
    const response = body.tool_response as { llmContent?: unknown; error?: unknown } | undefined;
    const output = outputText(response?.llmContent ?? response?.error ?? response);
    const exitFailed = body.tool_name === 'run_shell_command' && shellExitFailed(output);
    return { outcome: failed(response) || exitFailed ? 'failed' : 'succeeded', output };
  },
};

function format(event: NeutralEvent, reply: Reply): AgentOutput {
  if (event.event === 'pre_tool') {
    if (reply.kind === 'allow') return json({ decision: 'allow' });
    const reason =
      reply.kind === 'deny' || reply.kind === 'ask' || reply.kind === 'defer'
        ? reply.reason
        : 'Airlock could not decide this call';
    return json({ decision: 'deny', reason });
  }
  if (reply.kind === 'continue') return json({ decision: 'deny', reason: reply.feedback });
  if (reply.kind === 'deny' && event.event === 'turn_start') {
    return json({ decision: 'deny', reason: reply.reason });
  }
  const context = reply.kind === 'pass' || reply.kind === 'allow' ? reply.context : null;
  const note = reply.kind === 'pass' ? reply.note : reply.kind === 'deny' ? reply.reason : null;
  const names: Partial<Record<NeutralEvent['event'], string>> = {
    post_tool: 'AfterTool',
    turn_start: 'BeforeAgent',
    session_start: 'SessionStart',
  };
  const hookEventName = names[event.event];
  return json({
    ...(context && hookEventName
      ? { hookSpecificOutput: { hookEventName, additionalContext: context } }
      : {}),
    ...(note ? { systemMessage: note } : {}),
  });
}

/**
 * Gemini CLI 0.61: command hooks in `.gemini/settings.json` (timeouts in
 * milliseconds). `BeforeTool` refuses with `{"decision":"deny","reason"}`
 * (a Claude-shaped answer is ignored); it has no ask that works headless, so
 * a call that needs a person waits for one in Airlock. Context for the model
 * rides on `AfterTool`'s `additionalContext`.
 */
export const gemini: AgentProtocol = {
  agent: 'gemini',
  hookEvents: [
    'SessionStart',
    'BeforeAgent',
    'BeforeTool',
    'AfterTool',
    'AfterAgent',
    'PreCompress',
  ],
  updatesInput: false,
  nativeAsk: false,
  canDefer: false,
  parse(payload) {
    return parseHookPayload('gemini', SHAPE, payload);
  },
  eventOf(eventName) {
    return eventNamed(EVENTS, eventName);
  },
  format,
};
