import { type Kysely, type Migration, sql } from 'kysely';
import { DIALECT_TRAITS, type Dialect } from './dialect.js';

/**
 * Retention, exactly once (issue 29): how long each export file of a
 * workspace was at the pruner's last committed delete, per export directory,
 * so that a pass cuts off what a killed or failed step appended without
 * deleting. Conversations go with their last run, found by an index (which
 * also serves the foreign-key checks of their deletes); hooked sessions too.
 */
export function retentionExportsMigration(dialect: Dialect): Migration {
  const big = DIALECT_TRAITS[dialect].bigInteger;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('retention_exports')
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
        .addColumn('location', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('sizes', 'text', (c) => c.notNull())
        .addColumn('updated_at', big, (c) => c.notNull())
        .addPrimaryKeyConstraint('retention_exports_pk', ['workspace_id', 'location'])
        .execute();
      await db.schema
        .createIndex('runs_by_conversation')
        .on('runs')
        .column('conversation_id')
        .where(sql.ref('conversation_id'), 'is not', null)
        .execute();
      await db.schema
        .createIndex('hook_sessions_by_conversation')
        .on('hook_sessions')
        .column('conversation_id')
        .execute();
    },
  };
}
