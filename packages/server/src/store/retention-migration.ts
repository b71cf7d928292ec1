import { type Kysely, type Migration, sql } from 'kysely';
import { DIALECT_TRAITS, type Dialect } from './dialect.js';

/**
 * Retention (issue 29): a workspace's policy (how many days events, ended
 * runs and the audit trail are kept; null keeps them), and how far its event
 * log has been pruned, which the feed reads to tell a resuming subscriber to
 * resynchronise. Ended runs are found by age through a partial index.
 */
export function retentionMigration(dialect: Dialect): Migration {
  const big = DIALECT_TRAITS[dialect].bigInteger;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('retention_policies')
        .addColumn('workspace_id', 'text', (c) => c.primaryKey().references('workspaces.id'))
        .addColumn('events_days', 'integer')
        .addColumn('runs_days', 'integer')
        .addColumn('audit_days', 'integer')
        .addColumn('updated_by', 'text', (c) => c.notNull())
        .addColumn('updated_at', big, (c) => c.notNull())
        .addColumn('pruned_through', big, (c) => c.notNull().defaultTo(0))
        .addColumn('events_pruned_before', big, (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createIndex('runs_ended_by_age')
        .on('runs')
        .columns(['workspace_id', 'ended_at'])
        .where(sql.ref('ended_at'), 'is not', null)
        .execute();
    },
  };
}
