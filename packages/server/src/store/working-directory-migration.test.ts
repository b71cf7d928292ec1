import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { storeBeforeMigration, writeOldToolCall } from '../testing/older-schema.js';
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
  await storeBeforeMigration(location, '0025', writeOldToolCall);
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
