import { forTerminal, SUBSCRIPTION_CONTRACTS } from '@airlock/core';
import { OPERATIONS } from './operations.js';

/** The procedures the router serves, by their dotted names. */
const PROCEDURE_NAMES = new Set([
  ...OPERATIONS.map((operation) => operation.name),
  SUBSCRIPTION_CONTRACTS['runs.feed'].name,
]);

/** How much of a path that names no procedure a log line repeats. */
const LOGGED_PATH_CHARS = 64;

/**
 * How a log line names the procedure a call asked for: its name when the router serves it;
 * else the path as the caller sent it (its own text, of any length, with control characters
 * that forge log lines on a terminal), cut to {@link LOGGED_PATH_CHARS} characters and escaped.
 */
export function loggedProcedure(path: string | undefined): string {
  if (path === undefined) return '(none)';
  if (PROCEDURE_NAMES.has(path)) return path;
  const cut = path.length > LOGGED_PATH_CHARS ? `${path.slice(0, LOGGED_PATH_CHARS)}…` : path;
  return `unknown procedure ${forTerminal(JSON.stringify(cut))}`;
}
