import { createHash } from 'node:crypto';
import type { TaskTable } from './schema.js';
import { SQL } from './sql-handle.js';
import type { Tx } from './store.js';

/**
 * The claim lock of a sequential tool in a run. The claim's read of its
 * candidates spells the same key in SQL (store/task-inbox.ts) to look past
 * rows it holds back.
 */
export function sequentialLockKey(runId: string, toolName: string): string {
  return `tool:${runId}:${toolName}`;
}

/**
 * The longest lock key kept as itself, in UTF-8 bytes. PostgreSQL refuses an
 * index entry past about 2.7 kB (the key is the primary key's), and a path a
 * call writes may be longer: such a key is kept as its digest.
 */
const LONGEST_STORED_KEY = 2048;

/**
 * The lock row's key for a lock: the key itself, or its SHA-256 when longer
 * than {@link LONGEST_STORED_KEY} (the `tool:` keys of names the API accepts
 * stay readable, as the claim's read of its candidates spells them).
 */
function storedLockKey(key: string): string {
  if (Buffer.byteLength(key) <= LONGEST_STORED_KEY) return key;
  return `sha256:${createHash('sha256').update(key).digest('hex')}`;
}

/**
 * The claim locks of spec 003 (see kernel/verbs/claim-serialization.ts for which
 * keys a row needs): a lock is held while the row that took it is still
 * `claimed`, so a committed, failed or expired claim frees it without any
 * cleanup. Keys are taken in the order given; on PostgreSQL the lock row is
 * locked by the upsert that takes it. Returns null when every key is the row's, else the key a
 * claimed row holds.
 */
export async function takeClaimLocks(
  tx: Tx,
  row: Pick<TaskTable, 'workspace_id' | 'run_id' | 'key'>,
  keys: readonly string[],
): Promise<string | null> {
  for (const key of keys) {
    const stored = storedLockKey(key);
    // One statement takes the lock row, new or existing, and answers its holder with the row
    // locked: an insert that found the row and a read after it could miss it, deleted between
    // them by retention pruning its holder's run, and the claim failed (500).
    const lock = await tx[SQL].db
      .insertInto('claim_locks')
      .values({
        workspace_id: row.workspace_id,
        lock_key: stored,
        run_id: row.run_id,
        task_key: row.key,
        taken_at: tx.now,
      })
      .onConflict((oc) =>
        oc
          .columns(['workspace_id', 'lock_key'])
          .doUpdateSet({ lock_key: (eb) => eb.ref('excluded.lock_key') }),
      )
      .returning(['run_id', 'task_key'])
      .executeTakeFirstOrThrow();
    if (lock.run_id === row.run_id && lock.task_key === row.key) continue;
    const holder = await tx[SQL].db
      .selectFrom('tasks')
      .select('state')
      .where('run_id', '=', lock.run_id)
      .where('key', '=', lock.task_key)
      .executeTakeFirst();
    if (holder?.state === 'claimed') return key;
    await tx[SQL].db
      .updateTable('claim_locks')
      .set({ run_id: row.run_id, task_key: row.key, taken_at: tx.now })
      .where('workspace_id', '=', row.workspace_id)
      .where('lock_key', '=', stored)
      .execute();
  }
  return null;
}
