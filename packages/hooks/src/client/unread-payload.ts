import type { AgentProtocol, NeutralEvent } from '../agents/types.js';

/*
 * A hook payload that cannot be read (not JSON, cut short, empty, not
 * UTF-8, or without the fields its event needs) is still answered in the
 * shape of its own event: a post-tool report's answer cannot un-run the call,
 * and a refusal there tells the model that a call that ran failed (Gemini CLI
 * replaces the tool's result with it; Claude Code feeds it to the model).
 */

/** Where the JSON string starting at `start` (its opening quote) ends; -1 when it is cut off. */
function stringEnd(text: string, start: number): number {
  for (let index = start + 1; index < text.length; index += 1) {
    const char = text[index];
    if (char === '\\') index += 1;
    else if (char === '"') return index;
  }
  return -1;
}

function decodedString(raw: string): string | undefined {
  try {
    const value = JSON.parse(raw) as unknown;
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The `hook_event_name` of a payload's top-level object, read from its text
 * as far as the text goes (a payload cut short still names its event before
 * its tool input: every agent writes the header first). Keys inside nested
 * values (a tool input that mentions another event) are never read, since
 * the agent's own serializer writes the structure and the model writes
 * only string contents. Undefined when the text is not an object or ends
 * before the name.
 */
export function topLevelEventName(text: string): string | undefined {
  if (!/^\s*\{/.test(text)) return undefined;
  let depth = 0;
  let expectKey = false;
  let key: string | undefined;
  for (let index = text.indexOf('{'); index < text.length; index += 1) {
    const char = text[index];
    if (char === '"') {
      const end = stringEnd(text, index);
      if (end < 0) return undefined;
      if (depth === 1) {
        const value = decodedString(text.slice(index, end + 1));
        if (expectKey) {
          key = value;
          expectKey = false;
        } else if (key === 'hook_event_name') {
          return value;
        }
      }
      index = end;
    } else if (char === '{' || char === '[') {
      depth += 1;
      if (depth === 1) expectKey = true;
    } else if (char === '}' || char === ']') {
      depth -= 1;
      if (depth <= 0) return undefined;
    } else if (char === ',' && depth === 1) {
      expectKey = true;
      key = undefined;
    }
  }
  return undefined;
}

/** What an unreadable payload is answered as (see {@link unreadPayloadEvent}). */
export type UnreadPayload =
  /** It is, or may be, a tool check: the call is refused. */
  | { kind: 'refuse' }
  /** An event Airlock answers, not a tool check: it passes, answered in its own shape. */
  | { kind: 'event'; event: NeutralEvent }
  /** An event Airlock does not handle: nothing is said. */
  | { kind: 'ignore' };

/**
 * Tells which event a payload Airlock could not read is, to answer it in
 * that event's own shape: the top-level `hook_event_name` of the parsed
 * payload, or of its text read as far as it goes. A tool check, and a
 * payload whose event cannot be told at all, is refused (fail closed: the
 * three agents read exit 2 as a refusal); a post-tool report, a stop, a
 * prompt pass with a note, never a refusal. The event's name is taken from
 * the top level only: a tool input that mentions another event changes
 * nothing.
 * @param payload The payload as JSON parsed it; undefined when it did not parse.
 * @param text The payload's text as the hook read it (empty for the kernel's own endpoint).
 */
export function unreadPayloadEvent(
  protocol: AgentProtocol,
  payload: unknown,
  text: string,
): UnreadPayload {
  const parsed = typeof payload === 'object' && payload !== null && !Array.isArray(payload);
  const named = parsed
    ? (payload as { hook_event_name?: unknown }).hook_event_name
    : topLevelEventName(text);
  if (typeof named !== 'string') return { kind: 'refuse' };
  const event = protocol.eventOf(named);
  if (event === 'pre_tool') return { kind: 'refuse' };
  if (event === null) return { kind: 'ignore' };
  const sessionId = parsed ? (payload as { session_id?: unknown }).session_id : undefined;
  return {
    kind: 'event',
    event: {
      agent: protocol.agent,
      session_id: typeof sessionId === 'string' ? sessionId : '',
      event,
      hook_event_name: named,
    },
  };
}

/** Why an unreadable event passed, as the user reads it: a report's call ran all the same. */
export function unreadNote(event: NeutralEvent, why: string): string {
  return event.event === 'post_tool'
    ? `${why}. The call ran; its row is settled when the turn stops (from the agent's transcript where the hook can read it)`
    : why;
}
