import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const packageDir = fileURLToPath(new URL('../../', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const lockDir = fileURLToPath(new URL('../../dist-build.lock', import.meta.url));

/** The built CLI that tests spawn. */
export const CLI_PATH = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

function sleep(milliseconds: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, milliseconds);
}

/**
 * Builds the package (and core, by project reference) with `tsc -b` so
 * tests can spawn `dist/cli.js`. Test files run in parallel workers, so a
 * lock directory serializes the builds; `tsc -b` is incremental, so the
 * second build is a quick no-op.
 */
export function buildDist(): string {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(lockDir);
      break;
    } catch {
      const age =
        Date.now() - (statSync(lockDir, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 120_000) rmdirSync(lockDir, { recursive: true } as never);
      if (Date.now() > deadline)
        throw new Error('timed out waiting for another test to build dist');
      sleep(100);
    }
  }
  try {
    execFileSync(
      process.execPath,
      [`${repoRoot}node_modules/typescript/bin/tsc`, '-b', packageDir],
      { stdio: 'pipe' },
    );
  } catch (error) {
    // Another package of the workspace may be mid-edit; an existing build still lets these tests run.
    if (!existsSync(CLI_PATH)) throw error;
    const output = String((error as { stdout?: unknown }).stdout ?? '');
    process.stderr.write(`rules-lint tests: tsc -b failed, using the existing dist/\n${output}\n`);
  } finally {
    rmdirSync(lockDir);
  }
  return CLI_PATH;
}
