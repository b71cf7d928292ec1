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

/** A JSON answer on stdout, exit 0. */
export function json(body: Record<string, unknown>): {
  stdout: string;
  stderr: string;
  exitCode: number;
} {
  return { stdout: `${JSON.stringify(body)}\n`, stderr: '', exitCode: 0 };
}
