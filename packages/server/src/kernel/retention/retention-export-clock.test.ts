import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ExportFolder } from './retention-export.js';

/**
 * A pruning step whose clock reads an earlier day than the last committed
 * step's (another kernel on the same PostgreSQL database a few seconds
 * behind across midnight, or a clock set back) appends to the record's day,
 * so the next repair cuts nothing: before, it wrote to the earlier day's
 * file and recorded that day, and the next pass moved the later day's whole
 * file, rows whose delete had committed, aside into a .cut file.
 */

const root = mkdtempSync(join(tmpdir(), 'airlock-export-clock-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('ExportFolder.append with a clock behind the record', () => {
  it('writes to the record’s day, and a repair then cuts nothing', async () => {
    const folder = new ExportFolder(root, 'ws_1');
    const ahead = Date.parse('2026-12-07T00:00:01Z');
    const behind = Date.parse('2026-12-06T23:59:58Z');
    const first = await folder.append(
      { events: [{ seq: 1 }] },
      { now: ahead, committed: { day: '2026-12-06', sizes: {} } },
    );
    expect(first.day).toBe('2026-12-07');
    const second = await folder.append({ events: [{ seq: 2 }] }, { now: behind, committed: first });
    expect(second.day).toBe('2026-12-07');

    const repaired = await folder.repair(second, '2026-12-07', { now: ahead + 5, keepCut: true });
    expect(repaired.cutBytes).toBe(0);
    expect(readdirSync(join(root, 'ws_1'))).toEqual(['events-2026-12-07.jsonl']);
    expect(readFileSync(join(root, 'ws_1', 'events-2026-12-07.jsonl'), 'utf8')).toBe(
      '{"seq":1}\n{"seq":2}\n',
    );
  });
});
