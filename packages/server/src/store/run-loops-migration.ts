import { type Kysely, type Migration, sql } from 'kysely';
import { DIALECT_TRAITS, type Dialect } from './dialect.js';

/**
 * Each run says whose loop composes its calls (`runs.loop`, see RUN_LOOPS):
 * until now a hooked session's turn was recognised by its conversation
 * having a hooked session. Runs made before are backfilled the way they
 * were recognised: a run of a hooked session's conversation is `hooked`, a
 * run whose provider is `gateway` is `gateway`, any other `kernel`.
 */
export function runLoopsMigration(dialect: Dialect): Migration {
  const providerKind = DIALECT_TRAITS[dialect].jsonTextAt('provider', 'kind');
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('runs')
        .addColumn('loop', 'text', (c) => c.notNull().defaultTo('kernel'))
        .execute();
      await sql`update runs set loop = 'hooked' where conversation_id in
        (select conversation_id from hook_sessions)`.execute(db);
      await sql`update runs set loop = 'gateway' where loop = 'kernel'
        and ${providerKind} = 'gateway'`.execute(db);
    },
  };
}
