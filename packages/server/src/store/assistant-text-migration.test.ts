import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { storeBeforeMigration, writeOldToolCall } from '../testing/older-schema.js';
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
  await storeBeforeMigration(location, '0024', writeOldToolCall);
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
