import type { CliIo } from '../cli/cli-io.js';

/**
 * One `rules-lint` command: its name, its usage lines for `--help`, and how
 * it runs. Each command lives in its own file under `commands/`; adding one
 * is that file plus a line in `commands/registry.ts`.
 */
export interface Command {
  readonly name: string;
  /** Usage lines for `rules-lint --help`; a line starting with a space continues the one before. */
  readonly usage: readonly string[];
  /** Runs the command on its arguments; returns the exit code. Throws UsageError. */
  run(args: readonly string[], io: CliIo): Promise<number> | number;
}
