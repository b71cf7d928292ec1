import { type Kysely, type Migration, sql } from 'kysely';

/** The states a hooked call's retry may find its row in (see findIdenticalModelCall). */
export const OPEN_CALL_STATES = ['runnable', 'needs_approval', 'claimed'] as const;

/**
 * Indexes for the rows a hooked session, a gateway client or a framework
 * adapter asks about on every call (store/hooked-rows.ts): by the client's
 * call id, and the open calls of a tool. Without them each lookup walks the
 * run's rows, so a call cost more the longer its turn had run.
 */
export function hookedLookupsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createIndex('tasks_by_call_id')
        .on('tasks')
        .columns(['run_id', 'tool_call_id'])
        .where(sql.ref('tool_call_id'), 'is not', null)
        .execute();
      await db.schema
        .createIndex('tasks_open_by_tool')
        .on('tasks')
        .columns(['run_id', 'tool_name'])
        .where(
          sql.ref('state'),
          'in',
          OPEN_CALL_STATES.map((state) => sql.lit(state)),
        )
        .execute();
    },
  };
}
