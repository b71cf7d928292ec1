import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type CliIo, UsageError } from './cli-io.js';

/** Writes a report to `--output FILE` (relative to cwd) or, without it, to stdout. Throws UsageError. */
export async function writeOutput(
  io: CliIo,
  output: string | undefined,
  text: string,
): Promise<void> {
  if (output === undefined) {
    io.stdout(text);
    return;
  }
  try {
    await writeFile(resolve(io.cwd, output), text);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new UsageError(
      `--output ${output}: cannot write (${typeof code === 'string' ? code : 'error'})`,
    );
  }
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
