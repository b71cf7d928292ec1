import type { Reader } from './reader.js';
import { SQL } from './sql-handle.js';
import type { Store } from './store.js';

/**
 * What a restore leaves in the event log's numbering (`airlock restore`).
 *
 * A restored store's log ends at the backup's last event, while the store it
 * replaced went on past it: feed readers may have read events numbered after
 * the backup that the restore undid. Were the restored kernel to number its
 * new events from the backup's head, those readers would take the new events
 * for ones they had read, and skip them. So the restore numbers the restored
 * log on after the replaced store's head, and records the numbers it skips:
 * a reader resuming inside them read a history that is gone, and is told to
 * resynchronise (`feed_position_pruned`, see feed/pruned-position.ts).
 *
 * The record is a row of `store_identity` per workspace (the table of what a
 * store knows of where it came from), its value a JSON list of the skipped
 * ranges, one per restore, kept by later backups and restores.
 */

/** Sequence numbers no event of this store has: after `after`, up to `through` included. */
export interface SkippedRange {
  after: number;
  through: number;
}

/** A workspace's skipped range, as a restore records it. */
export interface ContinuedLog extends SkippedRange {
  workspaceId: string;
}

function rowName(workspaceId: string): string {
  return `restored_log:${workspaceId}`;
}

/** The ranges a workspace's log skips (none when it was never restored over a longer log). */
export async function skippedRanges(reader: Reader, workspaceId: string): Promise<SkippedRange[]> {
  const row = await reader[SQL].db
    .selectFrom('store_identity')
    .select('value')
    .where('name', '=', rowName(workspaceId))
    .executeTakeFirst();
  if (!row) return [];
  try {
    const ranges = JSON.parse(row.value) as unknown;
    return Array.isArray(ranges)
      ? ranges.filter(
          (range): range is SkippedRange =>
            Number.isSafeInteger(range?.after) && Number.isSafeInteger(range?.through),
        )
      : [];
  } catch {
    return [];
  }
}

/** The skipped range a reader's position lies in (after its start, up to its end), or null. */
export async function skippedRangeAt(
  store: Store,
  workspaceId: string,
  after: number,
): Promise<SkippedRange | null> {
  const ranges = await skippedRanges(store, workspaceId);
  return ranges.find((range) => after > range.after && after <= range.through) ?? null;
}

/**
 * Numbers a just-restored store's log on after the log of the store it
 * replaces, `replacedHeads` (workspace id to its last sequence number):
 * each workspace whose replaced log went past the restored one's head has
 * its next event numbered two past the replaced head, and the numbers
 * between recorded as skipped. One more than the replaced head is skipped
 * but not recorded: it is the head a reader asking for the latest position
 * is given until the first new event, and resumes from untouched.
 * Run on the restored store before anything writes an event to it, in one
 * unit of work (cut short, it changed nothing and may simply run again). A
 * second run changes nothing: the log's head is then past the replaced one.
 */
export async function continueAfterReplacedLog(
  store: Store,
  replacedHeads: ReadonlyMap<string, number>,
): Promise<ContinuedLog[]> {
  return store.transaction(async (tx) => {
    const db = tx[SQL].db;
    const workspaces = await db.selectFrom('workspaces').select(['id', 'event_seq']).execute();
    const continued: ContinuedLog[] = [];
    for (const workspace of workspaces) {
      const head = Number(workspace.event_seq);
      const replaced = replacedHeads.get(workspace.id);
      if (replaced === undefined || replaced <= head) continue;
      const range = { after: head, through: replaced };
      const value = JSON.stringify([...(await skippedRanges(tx, workspace.id)), range]);
      await db
        .insertInto('store_identity')
        .values({ name: rowName(workspace.id), value, recorded_at: tx.now })
        .onConflict((oc) => oc.column('name').doUpdateSet({ value, recorded_at: tx.now }))
        .execute();
      await db
        .updateTable('workspaces')
        .set({ event_seq: replaced + 1 })
        .where('id', '=', workspace.id)
        .execute();
      continued.push({ workspaceId: workspace.id, ...range });
    }
    return continued;
  });
}
