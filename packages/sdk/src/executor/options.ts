import { LeaseSchema, textIsWellFormed } from '@airlock/core';
import { type Problem, ValidationError } from '../errors.js';
import { invalidInput } from '../internal/deadline.js';
import { checkConnectionOptions } from '../internal/transport.js';
import type { ExecutorOptions } from './types.js';

/** The longest interval a timer can hold (about 24.8 days). */
const MAX_INTERVAL_MS = 2 ** 31 - 1;

/** The lease bounds the kernel's claim takes (core's LeaseSchema). */
const LEASE = LeaseSchema.unwrap();

/** Whether a value is a whole number from `min` to `max`. */
function wholeBetween(value: unknown, min: number, max: number): boolean {
  return Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max;
}

/**
 * Checks what an executor is made with, reporting every problem at once: an
 * executor whose every claim the kernel refuses (a lease it does not grant),
 * that never claims (a concurrency of NaN), or that polls the kernel without
 * pause (a poll interval of 0) would otherwise start and serve nothing.
 * @throws ValidationError `invalid_input`: the connection's problems (see
 *   checkConnectionOptions), then `tools` that is not an object of handlers
 *   (or names a tool with NUL or a lone surrogate),
 *   a `leaseMs` outside the kernel's bounds, a `concurrency` or `bodyLimit`
 *   that is not a whole number of 1 or more, a `pollMs` a timer cannot hold.
 */
export function checkExecutorOptions(options: ExecutorOptions): void {
  const problems: Problem[] = [];
  try {
    checkConnectionOptions(options);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    problems.push(...error.problems);
  }
  const refuse = (pointer: string, message: string) =>
    problems.push({ code: 'invalid_input', pointer, message });
  const { tools, leaseMs, concurrency, pollMs, bodyLimit } = options;
  if (typeof tools !== 'object' || tools === null || Array.isArray(tools)) {
    refuse('/tools', 'tools must be an object of tool handlers by tool name');
  } else {
    for (const [name, handler] of Object.entries(tools)) {
      if (typeof handler !== 'function') {
        refuse(`/tools/${name}`, `the handler of ${name} must be a function`);
      } else if (name.includes('\u0000') || !textIsWellFormed(name)) {
        // The kernel refuses every claim naming one: none of the executor's tools would be served.
        refuse(
          `/tools/${name}`,
          `the tool name ${JSON.stringify(name)} holds NUL or a lone surrogate, which no tool's name does`,
        );
      }
    }
  }
  const shortest = LEASE.minValue ?? 1;
  const longest = LEASE.maxValue ?? MAX_INTERVAL_MS;
  if (leaseMs !== undefined && !LEASE.safeParse(leaseMs).success) {
    refuse(
      '/leaseMs',
      `leaseMs must be a whole number of milliseconds from ${shortest} to ${longest} (the leases the kernel grants); got ${String(leaseMs)}`,
    );
  }
  if (concurrency !== undefined && !wholeBetween(concurrency, 1, Number.MAX_SAFE_INTEGER)) {
    refuse(
      '/concurrency',
      `concurrency must be a whole number, 1 or more; got ${String(concurrency)}`,
    );
  }
  if (pollMs !== undefined && !wholeBetween(pollMs, 1, MAX_INTERVAL_MS)) {
    refuse(
      '/pollMs',
      `pollMs must be a whole number of milliseconds from 1 to ${MAX_INTERVAL_MS}; got ${String(pollMs)}`,
    );
  }
  if (bodyLimit !== undefined && !wholeBetween(bodyLimit, 1, Number.MAX_SAFE_INTEGER)) {
    refuse(
      '/bodyLimit',
      `bodyLimit must be a whole number of bytes, 1 or more; got ${String(bodyLimit)}`,
    );
  }
  if (problems.length > 0) throw invalidInput(problems);
}
