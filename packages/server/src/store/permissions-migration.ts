import type { Kysely, Migration } from 'kysely';
import { DIALECT_TRAITS, type Dialect } from './dialect.js';

/**
 * Spec 003's durable state: overlay documents (one per scope and owner, with
 * the digest a member trusted for a project document) and the claim locks
 * that serialize sequential tools and file mutations.
 */
export function permissionsMigration(dialect: Dialect): Migration {
  const big = DIALECT_TRAITS[dialect].bigInteger;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('overlay_documents')
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('owner_id', 'text', (c) => c.notNull())
        .addColumn('document', 'text', (c) => c.notNull())
        .addColumn('digest', 'text', (c) => c.notNull())
        .addColumn('trusted_digest', 'text')
        .addColumn('trusted_by', 'text')
        .addColumn('updated_by', 'text', (c) => c.notNull())
        .addColumn('updated_at', big, (c) => c.notNull())
        .addPrimaryKeyConstraint('overlay_documents_pk', ['workspace_id', 'scope', 'owner_id'])
        .execute();
      await db.schema
        .createTable('claim_locks')
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
        .addColumn('lock_key', 'text', (c) => c.notNull())
        .addColumn('run_id', 'text', (c) => c.notNull())
        .addColumn('task_key', 'text', (c) => c.notNull())
        .addColumn('taken_at', big, (c) => c.notNull())
        .addPrimaryKeyConstraint('claim_locks_pk', ['workspace_id', 'lock_key'])
        .execute();
    },
  };
}
