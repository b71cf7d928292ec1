import type { CliIo } from '../cli/cli-io.js';
import { runCli } from '../cli/run-cli.js';

/** What one in-process CLI run printed and returned. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI in-process with captured output, relative to `cwd`, with `stdin` as standard input. */
export async function runCaptured(
  argv: readonly string[],
  cwd: string,
  stdin?: string,
): Promise<CliRun> {
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
    ...(stdin === undefined ? {} : { readStdin: async () => new TextEncoder().encode(stdin) }),
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}
