import { OperatorError } from './connection.js';

/** The most rows one page of a list holds (the API's bound). */
export const MAX_PAGE = 1000;

/**
 * Reads `--limit`: a whole number of rows from 1 to {@link MAX_PAGE}; undefined when absent.
 * @throws OperatorError (exit 2) naming the command on anything else.
 */
export function parseLimit(
  value: string | boolean | undefined,
  command: string,
): number | undefined {
  if (value === undefined) return undefined;
  const limit = typeof value === 'string' && /^\d{1,4}$/.test(value) ? Number(value) : Number.NaN;
  if (!(limit >= 1 && limit <= MAX_PAGE)) {
    throw new OperatorError(
      `${command}: --limit wants a number of rows from 1 to ${MAX_PAGE}, not "${String(value)}"`,
      2,
    );
  }
  return limit;
}
