import { shownValue } from '../shown-value.js';
import { UsageError } from './connection.js';

/**
 * Reads a flag that names one of a closed set of values (`--state running`);
 * undefined when absent. Every operator command checks its filters here, so
 * a value none of them takes is the same usage error (exit 2) everywhere,
 * before the kernel is asked.
 * @throws UsageError naming the command, the flag and the values it takes.
 */
export function parseChoice<T extends string>(
  value: string | boolean | undefined,
  options: { command: string; flag: string; choices: readonly T[] },
): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && (options.choices as readonly string[]).includes(value)) {
    return value as T;
  }
  throw new UsageError(
    `${options.command}: ${options.flag} wants one of ${options.choices.join(', ')}, not ${shownValue(String(value))}`,
  );
}

/**
 * Reads a flag that names a row to narrow to (`--run <run-id>`); undefined
 * when absent. An empty value (`--run=`, an unset shell variable) is a usage
 * error (exit 2), not a filter the kernel refuses or one that matches nothing.
 * @throws UsageError naming the command and the flag.
 */
export function parseIdFilter(
  value: string | boolean | undefined,
  options: { command: string; flag: string; what: string },
): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && value.trim() !== '') return value;
  throw new UsageError(
    `${options.command}: ${options.flag} wants ${options.what}, not an empty value`,
  );
}
