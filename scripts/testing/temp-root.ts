/**
 * Vitest global setup: every test's temporary directory goes under one directory of the run,
 * removed when the run ends, so a run leaves nothing in the system's temporary directory.
 * Tests make their own with `mkdtempSync(join(tmpdir(), ...))`; `os.tmpdir()` reads `TMPDIR`,
 * which the workers and every process a test starts inherit.
 * AIRLOCK_KEEP_TEST_TMP=1 keeps it (its path is printed) to look at what a failed test left.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'airlock-tests-'));
  // As open as the system's own: some tests run a command as another user (nobody), whose tools
  // (tsx's cache) make a directory of their own in TMPDIR. The sticky bit keeps each user's own.
  chmodSync(root, 0o1777);
  const before = process.env.TMPDIR;
  process.env.TMPDIR = root;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    if (process.env.AIRLOCK_KEEP_TEST_TMP === '1') {
      process.stdout.write(`test files kept in ${root}\n`);
      return;
    }
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  };
}
