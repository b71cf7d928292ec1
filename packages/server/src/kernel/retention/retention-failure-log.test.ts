import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../../testing/harness.js';
import { capturedLogger, type LogLine } from '../../testing/log-lines.js';
import { backends } from '../../testing/stores.js';

const [sqlite] = await backends();
const root = mkdtempSync(join(tmpdir(), 'airlock-retention-failures-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The lines that speak of a retention pass's failure, or of its end. */
const failureLines = (lines: readonly LogLine[]) =>
  lines.filter((line) => /retention pass(es)? (failed|succeed)/.test(line.msg));

/** The metrics as a member scrapes them. */
async function scrape(d: Deployment): Promise<string> {
  const response = await fetch(`${d.url}/metrics`, {
    headers: { authorization: `Bearer ${d.tokens.member}` },
  });
  expect(response.status).toBe(200);
  return response.text();
}

/** `airlock_retention_failing_passes` in a scrape. */
function failingPasses(text: string): number {
  const value = /^airlock_retention_failing_passes (\d+)$/m.exec(text)?.[1];
  expect(value, 'airlock_retention_failing_passes is scraped').toBeDefined();
  return Number(value);
}

/**
 * A pass that fails (the export directory cannot be made) fails again at every interval, for
 * good: the log says so once, then only when the failure changes or clears, and the pruner
 * (and `airlock_retention_failing_passes`) tells what fails meanwhile.
 */
describe.skipIf(sqlite!.skip !== null)('a retention pass failing pass after pass', () => {
  let d: Deployment | undefined;
  afterEach(async () => {
    await d?.close();
    d = undefined;
  });

  it('is logged once, again when it changes, and when it clears', async () => {
    const base = join(root, 'changes');
    mkdirSync(base);
    // The export directory's parent is a link, swapped in one step (a rename) while passes run.
    const pointTo = (target: string) => {
      symlinkSync(target, join(base, 'next'));
      renameSync(join(base, 'next'), join(base, 'link'));
    };
    // A file where a folder of the export directory's path should be: mkdir fails, ENOTDIR.
    writeFileSync(join(base, 'a-file'), '');
    pointTo(join(base, 'a-file'));
    const { logger, lines } = capturedLogger('debug');
    const exportDir = join(base, 'link', 'exports');
    // A pass at every clock sweep (50 ms), as a kernel's passes come at each interval.
    d = await deploy(sqlite!, { logger, retention: { exportDir, intervalMs: 0 } });
    const put = await d.member.put(`${d.ws}/retention`, {
      events_days: null,
      runs_days: 30,
      audit_days: null,
    });
    expect(put.status).toBe(200);
    const pruner = d.airlock.kernel.pruner!;
    const errors = () => failureLines(lines).filter((line) => line.level >= 50);
    // Four passes failed (or, as before, the second failure was logged again).
    await waitFor(async () => (pruner.failure?.passes ?? 0) >= 4 || errors().length > 1, {
      what: 'four failed passes',
      timeoutMs: 30_000,
    });
    expect(errors()).toHaveLength(1);
    expect(errors()[0]!.msg).toContain('retention pass failed');
    expect(pruner.failure!.message).toContain('ENOTDIR');
    expect(failingPasses(await scrape(d))).toBeGreaterThanOrEqual(4);

    // Another failure: said at once, once.
    mkdirSync(join(base, 'holds-a-file'));
    writeFileSync(join(base, 'holds-a-file', 'exports'), '');
    pointTo(join(base, 'holds-a-file'));
    await waitFor(async () => errors().length === 2 && (pruner.failure?.passes ?? 0) >= 3, {
      what: 'three passes failing otherwise',
      timeoutMs: 30_000,
    });
    expect(errors()).toHaveLength(2);

    // Cleared: said once, as info, with how many passes had failed.
    mkdirSync(join(base, 'empty'));
    pointTo(join(base, 'empty'));
    await waitFor(async () => pruner.failure === null, {
      what: 'a pass that succeeds',
      timeoutMs: 30_000,
    });
    await pruner.pruneNow();
    await pruner.pruneNow();
    const cleared = failureLines(lines).filter((line) => line.level === 30);
    expect(cleared).toHaveLength(1);
    expect(cleared[0]!.failed_passes).toBeGreaterThanOrEqual(3);
    expect(errors()).toHaveLength(2);
    expect(failingPasses(await scrape(d))).toBe(0);
  });

  it('fails cleanly, not spinning, on a /proc path that cannot be made', async () => {
    const { logger, lines } = capturedLogger();
    const exportDir = '/proc/self/airlock-no-such-folder/exports';
    d = await deploy(sqlite!, { logger, retention: { exportDir, intervalMs: 3_600_000 } });
    await d.member.put(`${d.ws}/retention`, { events_days: 30, runs_days: null, audit_days: null });
    await expect(d.airlock.kernel.pruner!.pruneNow()).rejects.toThrow(/ENOENT/);
    expect(failureLines(lines)).toHaveLength(1);
  });
});
