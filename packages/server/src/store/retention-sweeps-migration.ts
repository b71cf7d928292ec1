import type { Kysely, Migration } from 'kysely';
import { DIALECT_TRAITS, type Dialect } from './dialect.js';

/**
 * Where retention's sweep of each kind of a workspace's events stands, kept
 * in the store rather than in a kernel's memory: how far it read the log
 * (`retention_sweeps`), and the runs it kept events of because they had not
 * ended (`retention_held`). A kernel started again, or another kernel on the
 * same PostgreSQL database, goes on from there instead of reading the log
 * again from its start.
 */
export function retentionSweepsMigration(dialect: Dialect): Migration {
  const big = DIALECT_TRAITS[dialect].bigInteger;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('retention_sweeps')
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('through', big, (c) => c.notNull())
        .addColumn('updated_at', big, (c) => c.notNull())
        .addPrimaryKeyConstraint('retention_sweeps_pk', ['workspace_id', 'kind'])
        .execute();
      await db.schema
        .createTable('retention_held')
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('run_id', 'text', (c) => c.notNull())
        .addColumn('seq', big, (c) => c.notNull())
        .addColumn('created_at', big, (c) => c.notNull())
        .addPrimaryKeyConstraint('retention_held_pk', ['workspace_id', 'kind', 'run_id'])
        .execute();
    },
  };
}
