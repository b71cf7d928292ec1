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
 * A store made by a kernel from before `tasks.assistant_text` (every
 * migration up to 0023) upgrades, its rows keeping no text: the history
 * reads their rounds as said with none (`content: null`, as before).
 */

const root = mkdtempSync(join(tmpdir(), 'airlock-assistant-text-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const pgSkip = await postgresSkipReason();

async function expectNoTextAfterUpgrade(location: StoreLocation): Promise<void> {
  await storeBeforeMigration(location, '0024', async (db) => {
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
      .select(['key', 'assistant_text'])
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ key: 't1', assistant_text: null });
  } finally {
    await store.close();
  }
}

describe('the assistant text migration', () => {
  it('reads the rounds of an older SQLite store as said with no text', async () => {
    await expectNoTextAfterUpgrade({ dataDir: join(root, 'sqlite') });
  });

  it.skipIf(pgSkip !== null)(
    'reads the rounds of an older PostgreSQL store as said with no text',
    async () => {
      await expectNoTextAfterUpgrade({ databaseUrl: await freshPostgresDatabase() });
    },
  );
});
