import { type Kysely, type Migration, sql } from 'kysely';

/** The states in which a row waits for a person (the inbox's list, see pageOpenDecisions). */
export const WAITING_STATES = ['needs_approval', 'awaiting_input'] as const;

/**
 * An index of the rows waiting for a person, by workspace in the inbox's
 * order (park time, run, key). Without it each page of the inbox sorted
 * every waiting row of the workspace, so a page cost more the more waited;
 * with it a page reads its own rows, and the count walks this index.
 */
export function waitingPageMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createIndex('tasks_waiting_by_workspace')
        .on('tasks')
        .columns(['workspace_id', 'created_at', 'run_id', 'key'])
        .where(
          sql.ref('state'),
          'in',
          WAITING_STATES.map((state) => sql.lit(state)),
        )
        .where(sql.ref('resolution_token_hash'), 'is', null)
        .execute();
    },
  };
}
