import { type Kysely, type Migration, Migrator, sql } from 'kysely';
import type { StoreLocation } from '../store/backend.js';
import { backendFor } from '../store/backends.js';
import { parseDurability } from '../store/durability.js';
import { StaticMigrations } from '../store/migrations.js';

/**
 * Opens the store at `location` with only the migrations named before
 * `before` applied (`'0018'`: the schema of a kernel from before 0018), plus
 * the workspace `ws_old` and its application `app_old`, then lets `write`
 * add the rows that kernel would have left, and closes it. An upgrade test
 * then opens it with `Store.open`, which applies the rest.
 */
export async function storeBeforeMigration(
  location: StoreLocation,
  before: string,
  write: (db: Kysely<unknown>) => Promise<void>,
): Promise<void> {
  const backend = backendFor(location);
  const opened = await backend.open(location, parseDurability(undefined));
  try {
    const db = opened.db as Kysely<unknown>;
    const all = await new StaticMigrations(backend.dialect).getMigrations();
    const older: Record<string, Migration> = Object.fromEntries(
      Object.entries(all).filter(([name]) => name < before),
    );
    const { error } = await new Migrator({
      db,
      provider: { getMigrations: async () => older },
      migrationTableName: 'airlock_migrations',
      migrationLockTableName: 'airlock_migrations_lock',
    }).migrateToLatest();
    if (error) throw error;
    await sql`insert into workspaces (id, name, created_at) values ('ws_old', 'old', 1)`.execute(
      db,
    );
    await sql`insert into agent_applications (id, workspace_id, name, created_at)
      values ('app_old', 'ws_old', 'app', 1)`.execute(db);
    await write(db);
  } finally {
    await opened.close();
  }
}

/**
 * A `write` for {@link storeBeforeMigration}: the conversation `conv_old`, its running run
 * `run_old` and that run's succeeded tool call `t1`, as any older kernel wrote them (the rows a
 * migration adding a task column is checked against).
 */
export async function writeOldToolCall(db: Kysely<unknown>): Promise<void> {
  await sql`insert into conversations (id, workspace_id, agent_application_id, created_at)
    values ('conv_old', 'ws_old', 'app_old', 1)`.execute(db);
  await sql`insert into runs (id, workspace_id, agent_application_id, conversation_id, state, phase,
    approval_mode, approval_rules, tool_aliases, provider, input, on_failure, round, task_counter,
    created_by, created_at, updated_at)
    values ('run_old', 'ws_old', 'app_old', 'conv_old', 'running', 'model', 'bypass', '[]', '{}',
    '{"kind":"openai"}', '{"content":"x"}', 'continue', 2, 1, 'agent:app_old', 1, 1)`.execute(db);
  await sql`insert into tasks (workspace_id, run_id, key, round, origin, kind, state, tool_name,
    tool_input, on_failure, attempts, result, created_at, updated_at)
    values ('ws_old', 'run_old', 't1', 1, 'model', 'tool', 'succeeded', 'ls', '{}', 'continue', 1,
    '"a b"', 1, 1)`.execute(db);
}
