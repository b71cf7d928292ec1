import { plainWholeNumber } from '../whole-number.js';
import { UsageError } from './connection.js';

/** The most rows one page of a list holds (the API's bound). */
export const MAX_PAGE = 1000;

/**
 * Reads a flag that holds a whole number written in plain decimal digits, from
 * `min` to `max`; undefined when absent. `1e3`, `0x10`, `''` and ` 5` are refused.
 * @throws UsageError (exit 2) naming the command and the flag on anything else.
 */
export function parseWholeNumber(
  value: string | boolean | undefined,
  options: { command: string; flag: string; what: string; min: number; max: number },
): number | undefined {
  if (value === undefined) return undefined;
  const number =
    typeof value === 'string' ? plainWholeNumber(value, options.min, options.max) : null;
  if (number === null) {
    throw new UsageError(
      `${options.command}: ${options.flag} wants ${options.what}, not "${String(value)}"`,
    );
  }
  return number;
}

/**
 * Reads `--limit`: a whole number of rows from 1 to {@link MAX_PAGE}; undefined when absent.
 * @throws UsageError (exit 2) naming the command on anything else.
 */
export function parseLimit(
  value: string | boolean | undefined,
  command: string,
): number | undefined {
  return parseWholeNumber(value, {
    command,
    flag: '--limit',
    what: `a number of rows from 1 to ${MAX_PAGE}`,
    min: 1,
    max: MAX_PAGE,
  });
}
