import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ExportFolder } from './retention-export.js';

const root = mkdtempSync(join(tmpdir(), 'airlock-export-folder-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const DAY = '2026-12-05';
const NOW = Date.parse(`${DAY}T10:00:00Z`);

/** An export folder of one workspace whose runs file holds a committed line and a later one. */
function folderWithTail(name: string) {
  const dir = join(root, name);
  mkdirSync(join(dir, 'ws_1'), { recursive: true });
  const committed = '{"run":{"id":"run_a"}}\n';
  const later = '{"run":{"id":"run_b"}}\n';
  writeFileSync(join(dir, 'ws_1', `runs-${DAY}.jsonl`), committed + later);
  writeFileSync(join(dir, 'ws_1', 'events-2026-12-06.jsonl'), '{"seq":9}\n');
  const record = { day: DAY, sizes: { [`runs-${DAY}.jsonl`]: committed.length } };
  return { dir, committed, later, record, folder: new ExportFolder(dir, 'ws_1') };
}

describe('ExportFolder.repair', () => {
  it('cuts files back to the record and keeps what it cut beside them, never lost', async () => {
    const { dir, committed, later, record, folder } = folderWithTail('keep');
    const repaired = await folder.repair(record, DAY, { now: NOW, keepCut: true });
    expect(repaired.cutBytes).toBe(later.length + '{"seq":9}\n'.length);
    const names = readdirSync(join(dir, 'ws_1')).sort();
    expect(names).toEqual([
      `events-2026-12-06.jsonl.cut-${new Date(NOW).toISOString().replace(/[:.]/g, '-')}`,
      `runs-${DAY}.jsonl`,
      `runs-${DAY}.jsonl.cut-${new Date(NOW).toISOString().replace(/[:.]/g, '-')}`,
    ]);
    expect(readFileSync(join(dir, 'ws_1', `runs-${DAY}.jsonl`), 'utf8')).toBe(committed);
    const kept = repaired.keptIn.map((path) => readFileSync(path, 'utf8')).sort();
    expect(kept).toEqual([later, '{"seq":9}\n'].sort());
    // What was kept aside is no export file: a later repair leaves it alone.
    expect((await folder.repair(record, DAY, { now: NOW + 1, keepCut: true })).cutBytes).toBe(0);
  });

  it('cuts a failed step of its own without keeping it (the step writes it again)', async () => {
    const { dir, committed, record, folder } = folderWithTail('own');
    const repaired = await folder.repair(record, DAY, { now: NOW, keepCut: false });
    expect(repaired.keptIn).toEqual([]);
    expect(readdirSync(join(dir, 'ws_1'))).toEqual([`runs-${DAY}.jsonl`]);
    expect(readFileSync(join(dir, 'ws_1', `runs-${DAY}.jsonl`), 'utf8')).toBe(committed);
  });
});

describe('ExportFolder.append', () => {
  it('writes what it prunes for its owner alone, also in a folder others may list', async () => {
    const dir = join(root, 'open');
    // A workspace folder made by someone else (a copy with its modes kept): the kernel leaves its mode.
    mkdirSync(join(dir, 'ws_1'), { recursive: true });
    chmodSync(join(dir, 'ws_1'), 0o755);
    const folder = new ExportFolder(dir, 'ws_1');
    await folder.append(
      { runs: [{ run: { id: 'run_a' } }], audit: [{ seq: 1 }] },
      { now: NOW, committed: { day: DAY, sizes: {} } },
    );
    for (const name of [`runs-${DAY}.jsonl`, `audit-${DAY}.jsonl`]) {
      expect([name, statSync(join(dir, 'ws_1', name)).mode & 0o777]).toEqual([name, 0o600]);
    }
  });
});
