import { lockedForUpdate } from './dialect.js';
import { SQL } from './sql-handle.js';
import type { Tx } from './store.js';

/**
 * Locks a notice's delivery row until the unit commits (where several
 * processes share the store), so the units that follow its message's settle
 * with a fresh one take turns: each reads the settles the one before it wrote.
 */
export async function lockNotice(tx: Tx, noticeId: string): Promise<void> {
  await lockedForUpdate(
    tx[SQL].dialect,
    tx[SQL].db.selectFrom('notification_deliveries').select('id').where('id', '=', noticeId),
  ).execute();
}
