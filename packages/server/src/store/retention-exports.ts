import { SQL } from './sql-handle.js';
import type { Store, Tx } from './store.js';

/**
 * The retention repository's record of its export files: for one workspace
 * and export location, the day of the files last written and each file's
 * length when the delete of what it holds committed.
 */
export interface CommittedExports {
  day: string;
  /** File name (in the workspace's export folder) to its committed length in bytes. */
  sizes: Record<string, number>;
}

/** The record of a workspace's exports at a location, or undefined when none was written. */
export async function readCommittedExports(
  store: Store,
  workspaceId: string,
  location: string,
): Promise<CommittedExports | undefined> {
  const row = await store.db
    .selectFrom('retention_exports')
    .select(['day', 'sizes'])
    .where('workspace_id', '=', workspaceId)
    .where('location', '=', location)
    .executeTakeFirst();
  return row && { day: row.day, sizes: JSON.parse(row.sizes) as Record<string, number> };
}

/** Records, in the caller's unit of work, the export files' lengths its delete commits with. */
export async function writeCommittedExports(
  tx: Tx,
  record: CommittedExports & { workspaceId: string; location: string },
): Promise<void> {
  const values = { day: record.day, sizes: JSON.stringify(record.sizes), updated_at: tx.now };
  await tx[SQL].db
    .insertInto('retention_exports')
    .values({ workspace_id: record.workspaceId, location: record.location, ...values })
    .onConflict((oc) => oc.columns(['workspace_id', 'location']).doUpdateSet(values))
    .execute();
}
