import {
  asKeptText,
  inexactNumber,
  isStorableText,
  jsonStringEnd,
  MAX_JSON_DEPTH,
} from '@airlock/core';
import { withoutSecrets } from './provider-secrets.js';
import type { ProviderFailureCode, ProviderRound } from './types.js';
import { ProviderError } from './types.js';

/** Why a completion that stopped for a reason other than an answer or calls is not used. */
const CUT_SHORT: Record<string, { code: ProviderFailureCode; detail: string }> = {
  length: {
    code: 'provider_truncated',
    detail:
      'the model hit its output limit (finish_reason "length"): its answer or calls are cut off',
  },
  content_filter: {
    code: 'provider_content_filtered',
    detail: 'the endpoint withheld the answer (finish_reason "content_filter")',
  },
};

/** How much of a completion that is not JSON its failure quotes. */
const NOT_JSON_QUOTED = 200;

/** The longest tool name and call id a round may carry, as the gateway's calls. */
const NAME_MAX = 512;
const ID_MAX = 200;

/** A name or id every store keeps as sent: no NUL, no lone surrogate, not too long. */
function isKeptName(text: string, max: number): boolean {
  return text.length <= max && isStorableText(text);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A completion that is JSON but not in the shape chat completions answer: the run fails saying where. */
function malformed(what: string): ProviderError {
  return new ProviderError('provider_error', `the completion is malformed: ${what}`);
}

/**
 * How deep a call's input may nest arrays and objects, itself level 1: as deep as a
 * gateway call's input may (it sits three levels down a request body, which the door
 * bounds at {@link MAX_JSON_DEPTH}). Deeper input could not even be written: serializing
 * it overflows the stack.
 */
export const CALL_INPUT_MAX_DEPTH = MAX_JSON_DEPTH - 3;

/** Whether a parsed value nests arrays and objects deeper than `limit` (walked without recursion). */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 1 }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    if (item.value === null || typeof item.value !== 'object') continue;
    if (item.depth > limit) return true;
    for (const child of Object.values(item.value))
      stack.push({ value: child, depth: item.depth + 1 });
  }
  return false;
}

/**
 * Whether a JSON text holds a number token `JSON.parse` would not read as written (an
 * integer past 2^53, a number past the largest double; see `inexactNumber`): one linear
 * pass, strings skipped.
 */
function holdsInexactNumber(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = jsonStringEnd(text, i);
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1;
      while (end < text.length && /[0-9eE+\-.]/.test(text[end]!)) end++;
      if (inexactNumber(text.slice(i, end)) !== null) return true;
      i = end - 1;
    }
  }
  return false;
}

/**
 * A call's input from its `arguments`: the JSON text the API sends, parsed; an object
 * (as some compatible servers send) as it is; anything that is not a JSON object (not
 * JSON, or a string, number or list, which no function's parameters are) is kept as text
 * under `arguments`, so the rules still read it and an executor always gets an object.
 * So is text holding a number the parse would change (`12345678901234567890` read as
 * `…000`, `1e400` as Infinity, written as null): parsed, the rules, the person asked and
 * the executor would all read a call the model did not ask for, as no request could send
 * it (`inexact_number`). JSON `null` is no arguments, as an absent or empty `arguments` is: `{}`.
 * @throws ProviderError when the input nests deeper than {@link CALL_INPUT_MAX_DEPTH}.
 */
function inputOf(args: unknown, index: number): unknown {
  if (args === undefined || args === null || args === '') return {};
  let input: unknown;
  if (isRecord(args)) input = args;
  else if (typeof args !== 'string') input = { arguments: args };
  else {
    try {
      input = JSON.parse(args);
    } catch {
      return { arguments: args };
    }
    if (holdsInexactNumber(args)) return { arguments: args };
  }
  if (nestsDeeperThan(input, CALL_INPUT_MAX_DEPTH)) {
    throw malformed(
      `tool call ${index}'s arguments nest arrays and objects deeper than ${CALL_INPUT_MAX_DEPTH} levels`,
    );
  }
  if (input === null) return {};
  return isRecord(input) ? input : { arguments: args };
}

/**
 * What an error object some compatible servers answer with status 200 says (`{"error":
 * {"message", "code"}}` or `{"error": "..."}`), or null when it says nothing readable.
 */
function errorSaid(error: unknown): string | null {
  if (typeof error === 'string' && error !== '') return error;
  if (!isRecord(error) || typeof error.message !== 'string' || error.message === '') return null;
  const code = typeof error.code === 'string' && error.code !== '' ? ` (${error.code})` : '';
  return `${error.message}${code}`;
}

/** How a completion is read: the most calls it may ask for, and what its quoted text must not hold. */
export interface CompletionLimits {
  maxToolCalls: number;
  /** The secrets the request carried (the API key), taken out of any text the failure quotes. */
  secrets?: readonly string[] | undefined;
}

/**
 * Reads one chat-completions answer as a round: a final answer, or the calls
 * it asks for (at most `maxToolCalls`).
 * @throws ProviderError when it is not JSON, not in the completions' shape
 *   (each way named, never a JavaScript error's words; an error object in
 *   its place quoted, without `secrets`), cut short, a refusal
 *   with no content (`provider_refused`, quoting it), or asks
 *   for more calls than `maxToolCalls` (`provider_too_many_calls`).
 */
export function parseCompletion(text: string, limits: CompletionLimits): ProviderRound {
  const { maxToolCalls, secrets = [] } = limits;
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    // What came instead (a proxy's login page, a stream the kernel did not ask for) says why.
    const start = withoutSecrets(text, secrets).slice(0, NOT_JSON_QUOTED);
    throw new ProviderError(
      'provider_error',
      text.trim() === ''
        ? 'the completion is empty'
        : `the completion is not JSON; it starts: ${JSON.stringify(start)}`,
    );
  }
  const choices = isRecord(payload) ? payload.choices : undefined;
  const choice = Array.isArray(choices) ? choices[0] : undefined;
  const message = isRecord(choice) ? choice.message : undefined;
  if (!isRecord(message)) {
    const said = isRecord(payload) ? errorSaid(payload.error) : null;
    if (said !== null) {
      throw new ProviderError(
        'provider_error',
        `the endpoint answered an error instead of a completion: ${withoutSecrets(said, secrets).slice(0, 500)}`,
      );
    }
    throw new ProviderError('provider_error', 'the completion has no message');
  }
  const cutShort = CUT_SHORT[typeof choice?.finish_reason === 'string' ? choice.finish_reason : ''];
  if (cutShort) throw new ProviderError(cutShort.code, cutShort.detail);
  if (message.content != null && typeof message.content !== 'string') {
    throw malformed('its message content is not text');
  }
  const calls = message.tool_calls ?? [];
  if (!Array.isArray(calls)) throw malformed('its tool_calls is not a list');
  // What the model wrote is kept as text every store keeps alike (NUL as U+FFFD).
  const content = message.content == null ? message.content : asKeptText(message.content);
  if (calls.length === 0) {
    // Ended as a final answer, the run would complete on text (or '') the model gave as a plan.
    const finishReason = choice?.finish_reason;
    if (finishReason === 'tool_calls' || finishReason === 'function_call') {
      throw malformed(
        `it stopped for tool calls (finish_reason "${finishReason}") but carries none in tool_calls`,
      );
    }
    if (message.function_call != null) {
      throw malformed(
        'it stopped for tool calls but carries one as a legacy function_call, which the kernel does not read (it sends tools and reads tool_calls)',
      );
    }
    // A refusal (OpenAI's `refusal`, with no content) is no answer: completing with '' would hide it.
    if (content == null && typeof message.refusal === 'string' && message.refusal !== '') {
      throw new ProviderError('provider_refused', `the model refused: ${message.refusal}`);
    }
    return { type: 'final', content: content ?? '' };
  }
  // Each call is a row the approval stage weighs, and may park for a person: a model that asks
  // for thousands in one round fails the run whole, rather than running some of what it planned.
  if (calls.length > maxToolCalls) {
    throw new ProviderError(
      'provider_too_many_calls',
      `the model asked for ${calls.length} tool calls in one round, more than the ${maxToolCalls} this kernel takes (airlock serve --model-max-calls); none was planted`,
    );
  }
  const seenIds = new Set<string>();
  return {
    type: 'tool_calls',
    content: content ?? undefined,
    calls: calls.map((call: unknown, index) => {
      if (!isRecord(call)) throw malformed(`tool call ${index} is not an object`);
      const fn = isRecord(call.function) ? call.function : {};
      const name = fn.name;
      if (typeof name !== 'string' || name === '') {
        throw new ProviderError('provider_error', `tool call ${index} has no name`);
      }
      if (!isKeptName(name, NAME_MAX)) {
        throw new ProviderError(
          'provider_error',
          `tool call ${index} has a name no store keeps as sent (NUL, a lone surrogate, or over ${NAME_MAX} characters)`,
        );
      }
      // An id the round already used would make two results indistinguishable, and one no
      // store keeps as sent would name another call: such a call (or one without an id) is
      // answered under its task key instead.
      const id =
        typeof call.id === 'string' &&
        call.id !== '' &&
        isKeptName(call.id, ID_MAX) &&
        !seenIds.has(call.id)
          ? call.id
          : null;
      if (id !== null) seenIds.add(id);
      return { id, name, input: inputOf(fn.arguments, index) };
    }),
  };
}
