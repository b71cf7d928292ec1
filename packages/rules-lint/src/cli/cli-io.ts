import { progressAllowed } from '@airlock/core';
import { readStreamBounded } from '../source/read-bounded.js';

/** Where a command writes and what it reads relative to: the process, or a test's capture. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  readonly cwd: string;
  /** Draws a progress line on a terminal; absent when stderr is piped or in CI. */
  progress?(text: string): void;
  /** Reads standard input (for the FILE `-`), stopping once it holds more than `limit` bytes. */
  readStdin?(limit: number): Promise<Uint8Array>;
}

/** Exit codes: 0 clean, 1 errors found (or an example failed), 2 bad usage or an unreadable file. */
export const EXIT = { clean: 0, findings: 1, usage: 2 } as const;

/** A mistake in the command line or an input file the command cannot use: one line on stderr, exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The process's own streams and working directory. */
export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    ...(progressAllowed(process.stderr, process.env)
      ? { progress: (text: string) => process.stderr.write(text) }
      : {}),
    cwd: process.cwd(),
    readStdin: (limit) => readStreamBounded(process.stdin, limit),
  };
}
