import type { Kysely, Migration } from 'kysely';
import { DIALECT_TRAITS, type Dialect } from './dialect.js';

/**
 * Notifications (issue 27): the outbox. One row per notice and channel,
 * written in the same transaction as the event that needs a person; the
 * delivery worker claims due rows with a lease and records each outcome.
 */
export function notificationsMigration(dialect: Dialect): Migration {
  const big = DIALECT_TRAITS[dialect].bigInteger;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('notification_deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
        .addColumn('run_id', 'text', (c) => c.notNull())
        .addColumn('task_key', 'text')
        .addColumn('event_type', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('channel_kind', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', big, (c) => c.notNull())
        .addColumn('lease_owner', 'text')
        .addColumn('lease_until', big)
        .addColumn('last_error', 'text')
        .addColumn('external_ref', 'text')
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('updated_at', big, (c) => c.notNull())
        .addColumn('delivered_at', big)
        .execute();
      await db.schema
        .createIndex('notification_deliveries_due')
        .on('notification_deliveries')
        .columns(['state', 'next_attempt_at'])
        .execute();
      await db.schema
        .createIndex('notification_deliveries_by_workspace')
        .on('notification_deliveries')
        .columns(['workspace_id', 'created_at'])
        .execute();
      await db.schema
        .createIndex('notification_deliveries_by_task')
        .on('notification_deliveries')
        .columns(['run_id', 'task_key'])
        .execute();
    },
  };
}
