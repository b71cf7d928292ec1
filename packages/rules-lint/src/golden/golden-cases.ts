import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCaptured } from '../testing/capture.js';

/** The folder of crafted rule files, each beside its expected `--format json` output (in `src/`, also when run from `dist/`). */
export const GOLDEN_DIR = fileURLToPath(new URL('../../src/golden/cases/', import.meta.url));

/** Each case's input file name; `NAME.tools.json` and `NAME.expected.json` are its companions. */
export function goldenCases(): string[] {
  return readdirSync(GOLDEN_DIR)
    .filter((name) => /\.jsonc?$/.test(name) && !name.endsWith('.expected.json') && !name.endsWith('.tools.json'))
    .sort();
}

/** The expected-output file of a case. */
export function expectedPath(name: string): string {
  return join(GOLDEN_DIR, `${name.replace(/\.jsonc?$/, '')}.expected.json`);
}

/** Runs `rules-lint check --format json` on a case (with its tool catalog, if any) and returns stdout. */
export async function runGoldenCase(name: string): Promise<{ code: number; stdout: string }> {
  const tools = `${name.replace(/\.jsonc?$/, '')}.tools.json`;
  const args = ['check', '--format', 'json', ...(existsSync(join(GOLDEN_DIR, tools)) ? ['--tools', tools] : []), name];
  const run = await runCaptured(args, GOLDEN_DIR);
  return { code: run.code, stdout: run.stdout };
}
