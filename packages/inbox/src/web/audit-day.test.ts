import type { AuditRecord } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';
import { readLastDay } from './audit-day.js';

/** A trail of `count` records, oldest first, read a page at a time after a sequence number. */
function trail(count: number) {
  const records = Array.from({ length: count }, (_, i) => ({ seq: i + 1 }) as AuditRecord);
  const asked: number[] = [];
  const read = async (after: number, limit: number) => {
    asked.push(after);
    return records.filter((record) => record.seq > after).slice(0, limit);
  };
  return { read, asked };
}

describe("the Decided page's read of the last day", () => {
  it('keeps the newest records of a busy day, not the oldest, and counts them all', async () => {
    const { read } = trail(2500);
    const day = await readLastDay(read, { keep: 2000, pageSize: 1000 });
    expect(day.records.length).toBe(2000);
    expect(day.records.at(-1)?.seq).toBe(2500);
    expect(day.records[0]?.seq).toBe(501);
    expect(day.read).toBe(2500);
    expect(day.complete).toBe(true);
  });

  it('reads a quiet day in one request, and stops after its most pages, saying so', async () => {
    const quiet = trail(12);
    const day = await readLastDay(quiet.read, { keep: 2000, pageSize: 1000 });
    expect(day).toMatchObject({ read: 12, complete: true });
    expect(quiet.asked).toEqual([0]);
    const busy = trail(50);
    const cut = await readLastDay(busy.read, { keep: 20, pageSize: 10, maxPages: 3 });
    expect(cut).toMatchObject({ read: 30, complete: false });
    expect(cut.records.map((record) => record.seq)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 11),
    );
  });
});
