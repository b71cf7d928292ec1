import { FENCE_HELP, readFenceArgs } from './fence-args.js';

/**
 * Runs `airlock fence [store options]`; returns the exit code. The command
 * line is read first, with nothing loaded but Node's parser: the kernel and
 * the store drivers load only for one that can run (see fence-run.ts).
 * @throws UsageError (exit 2) on a command line it cannot run.
 */
export async function fence(argv: string[]): Promise<number> {
  const asked = readFenceArgs(argv);
  if ('help' in asked) {
    process.stdout.write(FENCE_HELP);
    return 0;
  }
  const { runFence } = await import('./fence-run.js');
  return runFence(asked);
}
