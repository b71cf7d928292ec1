import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { storeBeforeMigration } from '../testing/older-schema.js';
import { freshPostgresDatabase, postgresSkipReason } from '../testing/postgres.js';
import type { StoreLocation } from './backend.js';
import { Store } from './store.js';

/**
 * A store made by a kernel from before `tasks.working_directory` (every
 * migration up to 0024) upgrades, its rows keeping no working directory:
 * their relative paths are read from the project root, as before.
 */

const root = mkdtempSync(join(tmpdir(), 'airlock-working-directory-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const pgSkip = await postgresSkipReason();

async function expectNoDirectoryAfterUpgrade(location: StoreLocation): Promise<void> {
  await storeBeforeMigration(location, '0025', async (db) => {
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
  });
  const store = await Store.open(location);
  try {
    const row = await store.db
      .selectFrom('tasks')
      .select(['key', 'working_directory'])
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ key: 't1', working_directory: null });
  } finally {
    await store.close();
  }
}

describe('the working directory migration', () => {
  it('keeps the rows of an older SQLite store with no working directory', async () => {
    await expectNoDirectoryAfterUpgrade({ dataDir: join(root, 'sqlite') });
  });

  it.skipIf(pgSkip !== null)(
    'keeps the rows of an older PostgreSQL store with no working directory',
    async () => {
      await expectNoDirectoryAfterUpgrade({ databaseUrl: await freshPostgresDatabase() });
    },
  );
});
