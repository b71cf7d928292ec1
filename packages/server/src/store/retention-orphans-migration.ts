import type { Kysely, Migration } from 'kysely';

/**
 * Retention deletes a pruned run's claim locks by run (issue 29), so it
 * finds them through an index instead of reading every lock of the store.
 */
export function retentionOrphansMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createIndex('claim_locks_by_run')
        .on('claim_locks')
        .columns(['run_id', 'task_key'])
        .execute();
    },
  };
}
