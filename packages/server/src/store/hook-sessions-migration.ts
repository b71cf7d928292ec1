import type { Kysely, Migration } from 'kysely';
import { DIALECT_TRAITS, type Dialect } from './dialect.js';

/**
 * Hooked sessions (issue 25): a coding agent's session id, within its agent
 * application, names one conversation, and the run of its current turn.
 */
export function hookSessionsMigration(dialect: Dialect): Migration {
  const big = DIALECT_TRAITS[dialect].bigInteger;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('hook_sessions')
        .addColumn('agent_application_id', 'text', (c) =>
          c.notNull().references('agent_applications.id'),
        )
        .addColumn('agent', 'text', (c) => c.notNull())
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
        .addColumn('conversation_id', 'text', (c) => c.notNull().references('conversations.id'))
        .addColumn('run_id', 'text')
        .addColumn('created_at', big, (c) => c.notNull())
        .addPrimaryKeyConstraint('hook_sessions_pk', [
          'agent_application_id',
          'agent',
          'session_id',
        ])
        .execute();
    },
  };
}
