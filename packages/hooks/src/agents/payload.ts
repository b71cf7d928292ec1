/** Reading an agent's hook payload without a schema library (the hook entry stays small). */

/** The payload as an object, or an error naming what is wrong. */
export function objectOf(payload: unknown): Record<string, unknown> {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw new Error('the hook payload is not a JSON object');
  }
  return payload as Record<string, unknown>;
}

/** A string field, or undefined. */
export function text(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key];
  return typeof value === 'string' ? value : undefined;
}

/** The session id and event name every hook payload carries. */
export function header(body: Record<string, unknown>): { sessionId: string; eventName: string } {
  const sessionId = text(body, 'session_id');
  const eventName = text(body, 'hook_event_name');
  if (!sessionId) throw new Error('the hook payload has no session_id');
  if (!eventName) throw new Error('the hook payload has no hook_event_name');
  return { sessionId, eventName };
}

/** A tool's output as text: strings as they are, anything else as JSON. */
export function outputText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/**
 * The most of a call's output the kernel keeps, in UTF-16 code units: 16 KiB of
 * its UTF-8 (core's `HOOKED_OUTPUT_MAX_BYTES`, which a test keeps equal), never
 * more code units than that. The rest of a long output (a log, a large file
 * read) would only make the report larger than the kernel reads, and the call
 * that ran unrecorded.
 */
export const REPORTED_OUTPUT_MAX_UNITS = 16_384;

/**
 * A call's output as a report sends it: a longer one is cut one code unit past
 * what the kernel keeps (see {@link REPORTED_OUTPUT_MAX_UNITS}), so the kernel
 * knows it was longer and its row says so.
 */
export function reportedOutput(output: string): string {
  return output.length > REPORTED_OUTPUT_MAX_UNITS
    ? output.slice(0, REPORTED_OUTPUT_MAX_UNITS + 1)
    : output;
}

/**
 * The longest prompt or last message the kernel reads (its `text`, in UTF-16
 * code units). A longer one (a pasted log) is sent cut to it: refused whole,
 * its turn would not start, nor the prompt be recorded.
 */
export const EVENT_TEXT_MAX_UNITS = 1_000_000;

/** A prompt or last message as an event sends it (see {@link EVENT_TEXT_MAX_UNITS}). */
export function eventText(text: string): string {
  return text.length > EVENT_TEXT_MAX_UNITS ? text.slice(0, EVENT_TEXT_MAX_UNITS) : text;
}

/** A JSON answer on stdout, exit 0. */
export function json(body: Record<string, unknown>): {
  stdout: string;
  stderr: string;
  exitCode: number;
} {
  return { stdout: `${JSON.stringify(body)}\n`, stderr: '', exitCode: 0 };
}
