import type { Kysely, Migration } from 'kysely';
import { DIALECT_TRAITS, type Dialect } from './dialect.js';

/**
 * Approval policies (issue 27): one policy document per workspace, and every
 * member's approval of a parked row, bound to the row version it approved
 * (the same member approving one version twice is one row).
 */
export function approvalPoliciesMigration(dialect: Dialect): Migration {
  const big = DIALECT_TRAITS[dialect].bigInteger;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('approval_policies')
        .addColumn('workspace_id', 'text', (c) => c.primaryKey().references('workspaces.id'))
        .addColumn('document', 'text', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('updated_by', 'text', (c) => c.notNull())
        .addColumn('updated_at', big, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('task_approvals')
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
        .addColumn('run_id', 'text', (c) => c.notNull())
        .addColumn('task_key', 'text', (c) => c.notNull())
        .addColumn('row_version', 'text', (c) => c.notNull())
        .addColumn('principal', 'text', (c) => c.notNull())
        .addColumn('created_at', big, (c) => c.notNull())
        .addPrimaryKeyConstraint('task_approvals_pk', [
          'run_id',
          'task_key',
          'row_version',
          'principal',
        ])
        .execute();
    },
  };
}
