import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';
import { DIALECT_TRAITS, type Dialect } from './dialect.js';

/*
 * The first migrations, 0001 to 0004b, written before each later one had a
 * file of its own: the initial tables, questions and hooks, the token
 * limit, the sweep indexes and the policy layers.
 */

export function initial(dialect: Dialect): Migration {
  // Millisecond timestamps and counters need 64 bits on PostgreSQL; SQLite's INTEGER already is.
  const big = DIALECT_TRAITS[dialect].bigInteger;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('workspaces')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('event_seq', big, (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', big, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('agent_applications')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('config_version', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('removed_at', big)
        .execute();
      await db.schema
        .createTable('credentials')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
        .addColumn('agent_application_id', 'text', (c) => c.references('agent_applications.id'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('label', 'text', (c) => c.notNull())
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('revoked_at', big)
        .execute();
      await db.schema
        .createTable('profile_configurations')
        .addColumn('agent_application_id', 'text', (c) =>
          c.notNull().references('agent_applications.id'),
        )
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('configuration', 'text', (c) => c.notNull())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('created_at', big, (c) => c.notNull())
        .addPrimaryKeyConstraint('profile_configurations_pk', ['agent_application_id', 'version'])
        .execute();
      await db.schema
        .createTable('conversations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
        .addColumn('agent_application_id', 'text', (c) =>
          c.notNull().references('agent_applications.id'),
        )
        .addColumn('created_at', big, (c) => c.notNull())
        .execute();
      let runs = db.schema
        .createTable('runs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
        .addColumn('agent_application_id', 'text', (c) => c.references('agent_applications.id'))
        .addColumn('conversation_id', 'text', (c) => c.references('conversations.id'))
        .addColumn('regenerated_from', 'text');
      for (const column of ['state', 'phase', 'approval_mode', 'approval_rules', 'tool_aliases']) {
        runs = runs.addColumn(column, 'text', (c) => c.notNull());
      }
      runs = runs
        .addColumn('tool_names', 'text')
        .addColumn('lifecycle_hooks', 'text')
        .addColumn('config_version', 'integer')
        .addColumn('provider', 'text', (c) => c.notNull())
        .addColumn('input', 'text', (c) => c.notNull())
        .addColumn('on_failure', 'text', (c) => c.notNull())
        .addColumn('round', 'integer', (c) => c.notNull())
        .addColumn('task_counter', 'integer', (c) => c.notNull())
        .addColumn('attention', 'text')
        .addColumn('final_answer', 'text')
        .addColumn('error_code', 'text')
        .addColumn('error_detail', 'text')
        .addColumn('model_lease_owner', 'text')
        .addColumn('model_lease_until', big)
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('updated_at', big, (c) => c.notNull())
        .addColumn('ended_at', big);
      await runs.execute();
      await db.schema
        .createIndex('runs_by_workspace')
        .on('runs')
        .columns(['workspace_id', 'created_at'])
        .execute();
      await db.schema
        .createIndex('runs_due_for_model')
        .on('runs')
        .column('model_lease_until')
        .where(sql.ref('phase'), '=', sql.lit('model'))
        .execute();

      let tasks = db.schema
        .createTable('tasks')
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
        .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id'))
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('round', 'integer', (c) => c.notNull());
      for (const column of ['origin', 'kind', 'state', 'tool_name', 'tool_input', 'on_failure']) {
        tasks = tasks.addColumn(column, 'text', (c) => c.notNull());
      }
      for (const column of [
        'tool_call_id',
        'resolved_tool_name',
        'effect_profile',
        'decision',
        'addressee',
        'claim_id',
        'result',
        'error_code',
        'error_detail',
        'decided_by',
        'prompt',
        'options',
      ]) {
        tasks = tasks.addColumn(column, 'text');
      }
      tasks = tasks
        .addColumn('deadline_at', big)
        .addColumn('lease_until', big)
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('updated_at', big, (c) => c.notNull())
        .addPrimaryKeyConstraint('tasks_pk', ['run_id', 'key']);
      await tasks.execute();
      // Partial indexes: a row enters them only while a clock runs or work waits,
      // so most transitions write fewer index pages. Queries name the states literally.
      await db.schema
        .createIndex('tasks_park_deadlines')
        .on('tasks')
        .column('deadline_at')
        .where(sql.ref('state'), '=', sql.lit('needs_approval'))
        .execute();
      await db.schema
        .createIndex('tasks_claim_leases')
        .on('tasks')
        .column('lease_until')
        .where(sql.ref('state'), '=', sql.lit('claimed'))
        .execute();
      await db.schema
        .createIndex('tasks_waiting_by_run')
        .on('tasks')
        .columns(['run_id', 'state'])
        .where(sql.ref('state'), 'in', [sql.lit('needs_approval'), sql.lit('awaiting_input')])
        .execute();
      await db.schema
        .createIndex('tasks_holding_by_run')
        .on('tasks')
        .columns(['run_id', 'state'])
        .where(sql.ref('on_failure'), '=', sql.lit('hold'))
        .where(sql.ref('state'), 'in', [sql.lit('failed'), sql.lit('timed_out')])
        .execute();
      await db.schema
        .createIndex('tasks_by_round')
        .on('tasks')
        .columns(['run_id', 'round', 'origin'])
        .execute();
      await db.schema
        .createIndex('tasks_runnable')
        .on('tasks')
        .columns(['workspace_id', 'created_at'])
        .where(sql.ref('state'), '=', sql.lit('runnable'))
        .execute();
      const events = db.schema
        .createTable('run_events')
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
        .addColumn('seq', big, (c) => c.notNull())
        .addColumn('run_id', 'text', (c) => c.notNull())
        .addColumn('task_key', 'text')
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('principal', 'text')
        .addColumn('created_at', big, (c) => c.notNull())
        .addPrimaryKeyConstraint('run_events_pk', ['workspace_id', 'seq']);
      await events.execute();
      await db.schema
        .createIndex('run_events_by_run')
        .on('run_events')
        .columns(['run_id', 'seq'])
        .execute();
    },
  };
}

/** Questions, lifecycle hooks and their bookkeeping (issue 5). */
export function questionsAndHooks(dialect: Dialect): Migration {
  const big = DIALECT_TRAITS[dialect].bigInteger;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('tasks').addColumn('multi', 'integer').execute();
      await db.schema.alterTable('tasks').addColumn('resolution_token_hash', 'text').execute();
      await db.schema.alterTable('tasks').addColumn('hook_source', 'text').execute();
      // One durable hook task per event and source: a scheduling retry finds it, never plants twice.
      await db.schema
        .createIndex('tasks_hook_source')
        .on('tasks')
        .columns(['run_id', 'hook_source'])
        .unique()
        .execute();
      await db.schema
        .createIndex('tasks_question_deadlines')
        .on('tasks')
        .column('deadline_at')
        .where(sql.ref('state'), '=', sql.lit('awaiting_input'))
        .execute();
      await db.schema
        .createIndex('tasks_hook_deadlines')
        .on('tasks')
        .column('deadline_at')
        .where(sql.ref('kind'), '=', sql.lit('hook'))
        .where(sql.ref('state'), 'in', [sql.lit('runnable'), sql.lit('claimed')])
        .execute();
      await db.schema
        .alterTable('runs')
        .addColumn('continuations', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('runs').addColumn('pending_answer', 'text').execute();
      await db.schema.alterTable('runs').addColumn('context_limit_bytes', big).execute();
      await db.schema
        .alterTable('runs')
        .addColumn('compactions', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('runs').addColumn('summary', 'text').execute();
      await db.schema
        .alterTable('runs')
        .addColumn('summary_through_round', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}

/** A token limit on the model's context, beside the byte limit. */
export function contextTokenLimit(dialect: Dialect): Migration {
  const big = DIALECT_TRAITS[dialect].bigInteger;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('runs').addColumn('context_limit_tokens', big).execute();
    },
  };
}

/**
 * Indexes that keep sweeps and inserts cheap as the store grows: the removal
 * sweep probes runs by application, and the hook-source uniqueness index
 * holds only hook rows (NULLs never collide, so the constraint is unchanged).
 */
export function sweepIndexes(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createIndex('runs_by_application')
        .on('runs')
        .columns(['agent_application_id', 'state'])
        .execute();
      await db.schema.dropIndex('tasks_hook_source').execute();
      await db.schema
        .createIndex('tasks_hook_source')
        .on('tasks')
        .columns(['run_id', 'hook_source'])
        .unique()
        .where(sql.ref('hook_source'), 'is not', null)
        .execute();
    },
  };
}

/** Runs freeze the configuration of their policy layers (specs 003/004) beside their rules. */
export function policyLayers(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('runs').addColumn('policy_layers', 'text').execute();
    },
  };
}
