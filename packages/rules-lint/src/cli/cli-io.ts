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

let outputFailed = false;

/**
 * A writer to one of the process's streams that never ends the process: a
 * failed write drops the rest of the output instead of an unhandled `error`
 * event with a stack trace. A pipe whose reader has gone (EPIPE:
 * `rules-lint check policies/ | head`) was the reader's choice, so the
 * command keeps its own exit code; any other failure (a full disk under
 * `> report.sarif`) is one line on stderr and exit 2, since the report is lost.
 */
function guardedWriter(stream: NodeJS.WriteStream, name: string): (text: string) => void {
  let closed = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (closed) return;
    closed = true;
    if (error.code === 'EPIPE') return;
    outputFailed = true;
    process.exitCode = EXIT.usage;
    if (stream !== process.stderr && !process.stderr.destroyed)
      process.stderr.write(`rules-lint: cannot write to ${name} (${error.code ?? 'error'})\n`);
  });
  return (text) => {
    if (!closed) stream.write(text);
  };
}

/**
 * The exit code of a command that returned `code`: 2 once a write to the
 * process's standard output or error failed other than by a closed pipe.
 */
export function processExitCode(code: number): number {
  return outputFailed ? EXIT.usage : code;
}

/** The process's own streams and working directory. */
export function processIo(): CliIo {
  const stderr = guardedWriter(process.stderr, 'standard error');
  return {
    stdout: guardedWriter(process.stdout, 'standard output'),
    stderr,
    ...(progressAllowed(process.stderr, process.env) ? { progress: stderr } : {}),
    cwd: process.cwd(),
    readStdin: (limit) => readStreamBounded(process.stdin, limit),
  };
}
