import { type CliIo, UsageError } from './cli-io.js';
import { writeContained } from './contained-path.js';

/**
 * Writes a report to `--output FILE` (relative to cwd; never through a
 * symbolic link nor outside the working folder) or, without it, to stdout.
 * Throws UsageError.
 */
export async function writeOutput(
  io: CliIo,
  output: string | undefined,
  text: string,
): Promise<void> {
  if (output === undefined) {
    io.stdout(text);
    return;
  }
  await writeContained(output, io.cwd, text, `--output ${output}`);
}

/**
 * Reads a limit option such as `--max-warnings`: a whole number, or -1 for
 * no limit (undefined), as ESLint reads its `--max-warnings`. Throws UsageError.
 */
export function limitOption(value: string | boolean | undefined, name: string): number | undefined {
  if (value === undefined || value === '-1') return undefined;
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  throw new UsageError(
    `--${name} must be a whole number, or -1 for no limit, not "${String(value)}"`,
  );
}
