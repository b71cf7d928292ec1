import { type HookedAnswer, OPERATION_CONTRACTS } from '@airlock/core';
import {
  type AgentProtocol,
  claudeCode,
  codex,
  DEFAULT_WAIT_MS,
  decide,
  failClosed,
  gemini,
  type NeutralEvent,
  toolCheckAgentOf,
  unreadNote,
  unreadPayloadEvent,
} from '@airlock/hooks';
import { AirlockError } from '../errors.js';
import { recordHookedEvent } from '../kernel/hooks/hooked-sessions.js';
import { lookPreTool } from '../kernel/hooks/look-pre-tool.js';
import { releaseUnreadGrant } from '../kernel/hooks/unread-grant.js';
import { credentialIsActive } from '../store/accounts.js';
import { invalidInput } from './input-problems.js';
import { implement, type OperationContext } from './operation.js';

/** POST /agent_api/v1/hooks/events: one event of a coding agent's hooked session. */
export const hookEvent = implement(
  OPERATION_CONTRACTS['hooks.event'],
  async ({ kernel, principal, signal, bodyCut }, input) => {
    if (input.look !== undefined && input.event !== 'pre_tool') {
      throw new AirlockError('invalid_input', 'look is read on pre_tool only');
    }
    if (bodyCut && input.event === 'pre_tool')
      throw new AirlockError('payload_too_large', TOO_LARGE);
    // A look takes nothing, so nothing goes back when its client leaves: a claimed row it
    // answered about is another check's grant.
    if (input.look === true) return lookPreTool(kernel.context, principal, input);
    const answer = await recordHookedEvent(kernel.context, principal, input);
    if (input.event === 'pre_tool') await giveBackIfUnread({ kernel, principal, signal }, answer);
    return answer;
  },
);

/**
 * When the client left before its answer was written (now, or while it is
 * written), a call that answer granted goes back to its row, approved and
 * not granted: nobody read the grant, so nothing ran, and the identical call
 * made again is granted once instead of parking again (see releaseUnreadGrant).
 */
async function giveBackIfUnread(
  { kernel, principal, signal }: OperationContext,
  answer: HookedAnswer,
): Promise<void> {
  if (!signal || answer.verdict !== 'allow') return;
  const giveBack = () => releaseUnreadGrant(kernel.context, principal, answer);
  if (signal.aborted) {
    await giveBack();
    return;
  }
  signal.addEventListener(
    'abort',
    () => {
      giveBack().catch((error: unknown) =>
        kernel.context.logger.error({ err: error }, 'an unread grant could not be given back'),
      );
    },
    { once: true },
  );
}

/**
 * An event read from an agent's own payload, checked and kept as
 * `hooks.event` takes one: its bounds (a call id, a tool name), names a
 * store keeps as sent, and text as the kernel keeps it (NUL and lone
 * surrogates as U+FFFD), so that both stores record the same.
 * @throws AirlockError invalid_input naming what is out of bounds.
 */
function asEventInput(body: unknown) {
  const parsed = OPERATION_CONTRACTS['hooks.event'].input.safeParse(body);
  if (!parsed.success) throw invalidInput(parsed.error.issues);
  return parsed.data;
}

/**
 * Why a tool check whose body was past the limit is refused: read with its
 * long strings cut, its input is not the one the agent would run.
 */
const TOO_LARGE = `the call's input is too large to check (its hook payload is past ${OPERATION_CONTRACTS['hooks.event'].bodyLimitFloor} bytes)`;

/** The longest a Claude Code HTTP hook may hold its request for a person (under its 10-minute ceiling). */
const MAX_HTTP_WAIT_MS = 280_000;

/** The wait a URL names (`wait-0` waits for no person: a parked call is answered at once). */
function waitOf(value: unknown): number {
  if (value === undefined) return DEFAULT_WAIT_MS;
  const asked = Number(value);
  return Number.isFinite(asked) && asked >= 0 ? Math.min(asked, MAX_HTTP_WAIT_MS) : DEFAULT_WAIT_MS;
}

/** The wait and defer named by a hook URL's options (`default`, `wait-N`, `wait-N-defer`). */
function optionsOf(value: unknown): { waitMs: number; defer: boolean } {
  const match = /^wait-(\d+)(-defer)?$/.exec(String(value));
  return { waitMs: waitOf(match?.[1]), defer: match?.[2] !== undefined };
}

/**
 * Answers one agent's hook in its own format with the kernel itself: the
 * same mapping as the Node.js command hook, with the events recorded in
 * process; a payload it cannot read, or any failure to decide, refuses a
 * tool call. `beforeLook` runs before each look at a waiting call after the
 * first (tests hold a look there to change what it finds).
 */
export function answerNatively(
  protocol: AgentProtocol,
  seams: { beforeLook?: () => Promise<void> } = {},
) {
  return async (
    context: OperationContext,
    input: Record<string, unknown>,
  ): Promise<Record<string, never>> => {
    const { kernel, principal, signal } = context;
    const { hook_options: hookOptions, ...payload } = input;
    const { waitMs, defer } = optionsOf(hookOptions);
    let event: ReturnType<AgentProtocol['parse']>;
    try {
      event = protocol.parse(payload);
    } catch (error) {
      return answerUnread(context, protocol, payload, error as Error);
    }
    if (event === null) return answerForeignToolCheck(context, protocol, payload);
    if (context.bodyCut && event.event === 'pre_tool') {
      return JSON.parse(protocol.format(event, failClosed(event, TOO_LARGE)).stdout);
    }
    let polls = 0;
    let last: HookedAnswer | null = null;
    const reply = await decide(protocol, event, {
      kernel: { url: '', token: '' },
      waitMs,
      defer,
      // The address the agent reached the kernel by is not known here (a proxy may stand between).
      inboxUrl: null,
      ...(signal ? { signal } : {}),
      send: async (body) => {
        // The request was authenticated once; a credential revoked (or its application removed)
        // while it waits for a person must not take the call it was waiting for.
        if (polls++ > 0) {
          await seams.beforeLook?.();
          if (!(await credentialIsActive(kernel.context.store, principal.credential_id))) {
            throw new AirlockError(
              'unauthenticated',
              'the credential was revoked while the hook waited',
            );
          }
        }
        last = await recordHookedEvent(kernel.context, principal, asEventInput(body));
        return last;
      },
    });
    if (last !== null && event.event === 'pre_tool') {
      // A grant the reply does not hand over (the last look was answered about another row, or
      // the wait ended on it) reaches nobody: it goes back to its row at once.
      if (reply.kind === 'allow') await giveBackIfUnread(context, last);
      else await releaseUnreadGrant(kernel.context, principal, last);
    }
    return JSON.parse(protocol.format(event, reply).stdout);
  };
}

/**
 * The answer to a payload the agent's protocol cannot read (a tool event
 * with no tool name), in its own event's shape: a tool check is refused, a
 * report of a call that ran (or another event) passes with a note, since
 * a refusal there would tell the model the call failed. It is logged: the
 * call's row is settled at the turn's stop, as any unreported call is.
 */
function answerUnread(
  { kernel }: OperationContext,
  protocol: AgentProtocol,
  payload: Record<string, unknown>,
  error: Error,
): Record<string, never> {
  const why = `Airlock could not read the hook payload: ${error.message}`;
  const seen = unreadPayloadEvent(protocol, payload, '');
  if (seen.kind === 'ignore') return {};
  kernel.context.logger.warn(
    { agent: protocol.agent, event: payload.hook_event_name, session_id: payload.session_id },
    `a hook payload could not be read: ${error.message}`,
  );
  const event: NeutralEvent =
    seen.kind === 'event'
      ? seen.event
      : { agent: protocol.agent, session_id: String(payload.session_id), event: 'pre_tool' };
  const reply =
    seen.kind === 'event'
      ? { kind: 'pass' as const, context: null, note: unreadNote(event, why) }
      : failClosed(event, why);
  return JSON.parse(protocol.format(event, reply).stdout);
}

/**
 * The answer to an event this agent's endpoint does not handle: nothing, unless it is another
 * agent's tool check (a hook entry copied from that agent's settings: Claude Code's PreToolUse
 * posted to the gemini endpoint). Answered nothing, that agent runs the call unasked, so it is
 * refused in that agent's own shape, as the command clients refuse it.
 */
function answerForeignToolCheck(
  { kernel }: OperationContext,
  protocol: AgentProtocol,
  payload: Record<string, unknown>,
): Record<string, never> {
  const named = payload.hook_event_name;
  const other = toolCheckAgentOf(named);
  if (!other) return {};
  kernel.context.logger.warn(
    { agent: protocol.agent, event: named, session_id: payload.session_id },
    "another agent's tool check reached this agent's hook endpoint; refused",
  );
  const why =
    `Airlock could not decide this call, so it was not run: the hook entry posts to Airlock's ${protocol.agent} ` +
    `endpoint, and the agent sent another agent's tool check (${String(named)}); ` +
    "install this agent's own entries with airlock hooks install";
  const event: NeutralEvent = {
    agent: other.agent,
    session_id: String(payload.session_id ?? ''),
    event: 'pre_tool',
  };
  return JSON.parse(other.format(event, failClosed(event, why)).stdout);
}

/** POST /agent_api/v1/hooks/claude-code/{hook_options}: Claude Code's HTTP hook, in its own format. */
export const claudeCodeHook = implement(
  OPERATION_CONTRACTS['hooks.claudeCode'],
  answerNatively(claudeCode),
);

/** POST /agent_api/v1/hooks/codex/{hook_options}: a Codex CLI hook event, in its own format. */
export const codexHook = implement(OPERATION_CONTRACTS['hooks.codex'], answerNatively(codex));

/** POST /agent_api/v1/hooks/gemini/{hook_options}: a Gemini CLI hook event, in its own format. */
export const geminiHook = implement(OPERATION_CONTRACTS['hooks.gemini'], answerNatively(gemini));
