import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SQLITE_FILE_NAME } from '../store/store.js';
import { changingWorkload } from '../testing/changing-workload.js';
import { startKernelProcess } from '../testing/kernel-process.js';
import {
  checkAnswersAfterWalSync,
  type OrderingReport,
  straceCommand,
  straceSkipReason,
} from '../testing/syscall-trace.js';

const skip = straceSkipReason();
if (skip) console.warn(`[airlock tests] skipping the fsync-ordering test: ${skip}`);

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Runs a real kernel under strace through a changing workload; checks its trace. */
async function traced(
  durability: 'full' | 'relaxed',
): Promise<OrderingReport & { changes: number }> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `airlock-fsync-${durability}-`)));
  dirs.push(dir);
  const traceFile = join(dir, 'strace.log');
  const kernel = await startKernelProcess({
    dataDir: join(dir, 'data'),
    args: ['--durability', durability],
    wrapper: straceCommand(traceFile),
  });
  let changes = 0;
  try {
    changes = await changingWorkload(kernel, { sequences: 12, concurrency: 4 });
  } finally {
    await kernel.stop();
  }
  const wal = join(dir, 'data', `${SQLITE_FILE_NAME}-wal`);
  const report = checkAnswersAfterWalSync(readFileSync(traceFile, 'utf8'), wal);
  console.info(
    `[fsync ordering, ${durability}] ${report.answers} answers, ${report.walWrites} WAL writes, ` +
      `${report.walSyncs} WAL syncs, ${report.violations.length} answers before a sync`,
  );
  return { ...report, changes };
}

describe.skipIf(skip !== null)('the order of fsync and answer, traced with strace', () => {
  it('under --durability full, every answer goes out after the fsync of the WAL that holds its change', async () => {
    const report = await traced('full');
    expect(report.changes).toBe(48);
    // Every changing request's answer was seen in the trace, and the WAL was written and synced.
    expect(report.answers).toBeGreaterThanOrEqual(report.changes);
    expect(report.walWrites).toBeGreaterThan(0);
    expect(report.walSyncs).toBeGreaterThan(0);
    expect(report.violations).toEqual([]);
  }, 120_000);

  it('under --durability relaxed, answers go out before the WAL is synced (the check can fail)', async () => {
    const report = await traced('relaxed');
    expect(report.changes).toBe(48);
    expect(report.answers).toBeGreaterThanOrEqual(report.changes);
    expect(report.walWrites).toBeGreaterThan(0);
    expect(report.violations.length).toBeGreaterThan(0);
  }, 120_000);
});
