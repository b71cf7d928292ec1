import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { SQLITE_FILE_NAME } from '../store/sqlite/sqlite-backend.js';
import { Store } from '../store/store.js';
import { freshMigratedPostgresDatabase, postgresSkipReason } from './postgres.js';

/** A store backend under test: how to open a fresh one, or why it is skipped. */
export interface Backend {
  name: 'sqlite' | 'postgres';
  skip: string | null;
  /** Opens a fresh, empty, migrated store and a function that disposes of it. */
  open(clock?: () => number): Promise<{
    store: Store;
    location: { dataDir?: string; databaseUrl?: string };
    dispose(): Promise<void>;
  }>;
}

let migratedSqlite: Promise<string> | undefined;

/**
 * A fresh temp data dir holding what a store's first open leaves there (the
 * database file with every migration applied): a copy of one this process
 * migrates once, instead of migrating (and fsyncing) each test's store again.
 */
async function freshMigratedDataDir(): Promise<string> {
  migratedSqlite ??= (async () => {
    const template = mkdtempSync(join(tmpdir(), 'airlock-test-template-'));
    await (await Store.open({ dataDir: template })).close();
    return join(template, SQLITE_FILE_NAME);
  })();
  const file = await migratedSqlite;
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-test-'));
  copyFileSync(file, join(dataDir, SQLITE_FILE_NAME));
  return dataDir;
}

/** Both backends: SQLite in a temp dir, and PostgreSQL when the test server answers. */
export async function backends(): Promise<Backend[]> {
  const pgSkip = await postgresSkipReason();
  if (pgSkip) console.warn(`[airlock tests] skipping PostgreSQL: ${pgSkip}`);
  return [
    {
      name: 'sqlite',
      skip: null,
      async open(clock) {
        const dataDir = await freshMigratedDataDir();
        const store = await Store.open({ dataDir }, clock);
        return {
          store,
          location: { dataDir },
          async dispose() {
            await store.close();
            rmSync(dataDir, { recursive: true, force: true });
          },
        };
      },
    },
    {
      name: 'postgres',
      skip: pgSkip,
      async open(clock) {
        const databaseUrl = await freshMigratedPostgresDatabase();
        const store = await Store.open({ databaseUrl }, clock);
        return {
          store,
          location: { databaseUrl },
          async dispose() {
            await store.close();
          },
        };
      },
    },
  ];
}

/**
 * Called inside a `describe`: returns a function that opens a fresh store of
 * `backend` for the current test (as many as the test asks for), each
 * disposed of after that test.
 */
export function freshStorePerTest(backend: Backend): () => Promise<Store> {
  let disposers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const dispose of disposers) await dispose();
    disposers = [];
  });
  return async () => {
    const opened = await backend.open();
    disposers.push(opened.dispose);
    return opened.store;
  };
}
