import type { CliIo } from '../cli/cli-io.js';
import { runCli } from '../cli/run-cli.js';

/** What one in-process CLI run printed and returned. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI in-process with captured output, relative to `cwd`. */
export async function runCaptured(argv: readonly string[], cwd: string): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    cwd,
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}
