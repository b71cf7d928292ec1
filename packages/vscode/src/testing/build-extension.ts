import { execFile } from 'node:child_process';
import { mkdirSync, rmdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The extension's folder (its package.json, scripts/ and dist/). */
export const PACKAGE_DIR = join(import.meta.dirname, '..', '..');
const LOCK = join(tmpdir(), 'airlock-vscode-build.lock');

/**
 * Runs the package's `build` or `package` script, one at a time across test
 * files: both rewrite dist/, so a test reading the bundle while another
 * rebuilds it could read half a file. Throws when the script fails.
 */
export async function buildExtension(script: 'build' | 'package'): Promise<void> {
  const deadline = Date.now() + 240_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      const age = Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 240_000) rmdirSync(LOCK);
      if (Date.now() > deadline) throw new Error('timed out waiting for another extension build');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  try {
    await run('pnpm', ['run', script], { cwd: PACKAGE_DIR, timeout: 240_000 });
  } finally {
    rmdirSync(LOCK);
  }
}
