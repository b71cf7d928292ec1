import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Each row a member appended through the tasks door keeps who appended it
 * (`tasks.appended_by`): under `no_self_approval` that member may not approve
 * it, as a run's starter may not approve its calls. Appended rows still
 * waiting for a person are backfilled from their `task.created` event (kept
 * whole while their run lives); any other row keeps null.
 */
export function taskAppendersMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('tasks').addColumn('appended_by', 'text').execute();
      await sql`update tasks set appended_by = (
          select e.principal from run_events e
          where e.run_id = tasks.run_id and e.task_key = tasks.key and e.type = 'task.created'
          limit 1)
        where origin = 'author' and state = 'needs_approval'`.execute(db);
    },
  };
}
