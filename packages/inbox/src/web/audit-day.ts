import type { AuditRecord } from '@airlock/sdk';

/** What the Decided page read of the last day. */
export interface AuditDay {
  /** The newest records read, oldest first: at most `keep`. */
  records: AuditRecord[];
  /** How many records were read in all. */
  read: number;
  /** False when the read stopped at its most pages before the day's end. */
  complete: boolean;
}

/**
 * Reads a day of the audit trail, which the kernel answers oldest first a
 * page at a time, and keeps its newest `keep` records: on a busy day the
 * decisions a person looks for are the latest, so the oldest are the ones
 * left out. Stops after `maxPages` pages (said by `complete`).
 * @throws whatever `read` throws.
 */
export async function readLastDay(
  read: (after: number, limit: number) => Promise<AuditRecord[]>,
  options: { keep: number; pageSize: number; maxPages?: number },
): Promise<AuditDay> {
  const { keep, pageSize, maxPages = 100 } = options;
  let records: AuditRecord[] = [];
  let total = 0;
  let after = 0;
  for (let pages = 0; pages < maxPages; pages += 1) {
    const page = await read(after, pageSize);
    total += page.length;
    records = records.concat(page);
    if (records.length > keep) records = records.slice(records.length - keep);
    const last = page.at(-1);
    if (page.length < pageSize || !last) return { records, read: total, complete: true };
    after = last.seq;
  }
  return { records, read: total, complete: false };
}
