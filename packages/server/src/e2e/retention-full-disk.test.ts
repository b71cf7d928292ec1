import { execFileSync, spawnSync } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exportLocation } from '../kernel/retention/retention-export.js';
import { deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const DAY = 24 * 60 * 60 * 1000;
const PAGE = 4096;
const [sqlite] = await backends();
const root = mkdtempSync(join(tmpdir(), 'airlock-retention-full-disk-'));
const disk = join(root, 'disk');
mkdirSync(disk);

/** A real small disk: a 64 KiB tmpfs, which only root (with the right to mount) can make. */
function mountSkipReason(): string | null {
  if (process.platform !== 'linux') return 'tmpfs mounts need Linux';
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', disk]);
  if (mounted.error) return `mount could not run (${mounted.error.message})`;
  if (mounted.status !== 0) return `mount -t tmpfs refused: ${mounted.stderr.toString().trim()}`;
  return null;
}
const skip = mountSkipReason();
if (skip) console.warn(`[airlock tests] skipping the retention export on a full disk: ${skip}`);
afterAll(() => {
  if (!skip) execFileSync('umount', [disk]);
  rmSync(root, { recursive: true, force: true });
});

/**
 * Fills the disk, then frees two pages: one for the runs' events, which go
 * first; the runs' lines, longer than the other, are then written short.
 */
function fillAllButTwoPages(filler: string): void {
  const fd = openSync(filler, 'w');
  const chunk = Buffer.alloc(PAGE, 'f');
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
  truncateSync(filler, Math.max(0, statSync(filler).size - 2 * PAGE));
}

const endsAtOnce = (input: string) => ({
  approval_mode: 'bypass',
  input,
  provider: { kind: 'scripted', rounds: [{ final: 'done' }] },
});

describe.skipIf(skip !== null)('retention export on a nearly full disk', () => {
  it('fails the step with retention_export_failed, keeps the runs and leaves no torn line; once there is room it exports them whole', async () => {
    let now = Date.now();
    const exportDir = join(disk, 'exports');
    // The directory's own id file is written while there is room.
    await exportLocation(exportDir);
    const d = await deploy(sqlite!, {
      clock: () => now,
      retention: { exportDir, intervalMs: 10 * 365 * DAY },
    });
    try {
      const runs: string[] = [];
      for (let i = 0; i < 2; i++) {
        // Each run's export line alone is larger than a page.
        const created = await d.agent.post(`${d.ws}/runs`, endsAtOnce(`${i}`.repeat(3 * PAGE)));
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        runs.push(created.body.id as string);
      }
      for (const runId of runs) {
        await waitFor(
          async () => (await d.member.get(`${d.ws}/runs/${runId}`)).body.state === 'completed',
          { what: `run ${runId} to complete` },
        );
      }
      now += 100 * DAY;
      const policy = await d.member.put(`${d.ws}/retention`, {
        events_days: null,
        runs_days: 90,
        audit_days: null,
      });
      expect(policy.status, JSON.stringify(policy.body)).toBe(200);

      const filler = join(disk, 'filler');
      fillAllButTwoPages(filler);
      const failed = await d.airlock.kernel.pruner!.pruneNow().catch((error: unknown) => error);
      expect(failed).toMatchObject({
        name: 'RetentionExportError',
        code: 'retention_export_failed',
      });
      // A write took part of the line (a short write), the next found the disk full.
      expect((failed as Error).message).toMatch(/runs-.*: wrote [1-9]\d* of \d+ bytes \(ENOSPC/);
      // Nothing that was not exported whole was deleted.
      for (const runId of runs) {
        expect((await d.member.get(`${d.ws}/runs/${runId}`)).status).toBe(200);
      }
      // The torn line was cut back at once: no export file holds part of a line, none a run.
      const folder = join(exportDir, d.workspaceId);
      for (const name of readdirSync(folder)) {
        const text = readFileSync(join(folder, name), 'utf8');
        if (text !== '') expect(text.endsWith('\n')).toBe(true);
        for (const line of text.split('\n').filter((l) => l !== '')) JSON.parse(line);
      }
      const runsFiles = readdirSync(folder).filter((name) => name.startsWith('runs-'));
      for (const name of runsFiles) expect(statSync(join(folder, name)).size).toBe(0);

      unlinkSync(filler);
      const report = await d.airlock.kernel.pruner!.pruneNow();
      expect(report.runs).toBe(2);
      for (const runId of runs) {
        expect((await d.member.get(`${d.ws}/runs/${runId}`)).status).toBe(404);
      }
      const lines = readdirSync(folder)
        .filter((name) => name.startsWith('runs-'))
        .flatMap((name) => readFileSync(join(folder, name), 'utf8').split('\n'))
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as { run: { id: string } });
      expect(lines.map((line) => line.run.id).sort()).toEqual([...runs].sort());
    } finally {
      await d.close();
    }
  });
});
