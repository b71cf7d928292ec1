import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { shellQuoted } from '@airlock/core/command-line';
import { listWorkspaces } from '../store/accounts.js';
import {
  OlderStoreServedError,
  otherPostgresSessions,
  type PendingUpgrade,
} from '../store/pending-upgrade.js';
import { DataDirInUseError, holdDataDir } from '../store/sqlite/kernel-lock.js';
import { sqliteFileKind } from '../store/sqlite/store-file.js';
import { SQLITE_FILE_NAME, Store, type StoreLocation } from '../store/store.js';
import { NotAnAirlockStoreError } from '../store/store-errors.js';

/** Why a command that never creates a store refuses the one it was pointed at. */
export type MissingStoreCode = 'store_not_found' | 'not_an_airlock_store' | 'store_corrupt';

/** A store a command refuses to create: it was never started, or its path has a typo. */
export class MissingStoreError extends Error {
  constructor(
    readonly code: MissingStoreCode,
    message: string,
  ) {
    super(message);
    this.name = 'MissingStoreError';
  }
}

/**
 * How to run this CLI again: `pnpm exec airlock` in a checkout (the root
 * links the bin), `npx airlock` where it is installed, else `node path/cli.js`.
 */
export function selfCommand(): string {
  const script = process.argv[1] ?? 'airlock';
  if (existsSync(join(process.cwd(), 'node_modules', '.bin', 'airlock'))) {
    return existsSync(join(process.cwd(), 'pnpm-workspace.yaml'))
      ? 'pnpm exec airlock'
      : 'npx airlock';
  }
  if (/(^|\/)airlock$/.test(script)) return 'npx airlock';
  // Relative when the script is below here (`node dist/cli.js`), else its whole path.
  const near = relative(process.cwd(), script);
  return `node ${shellQuoted(near && !near.startsWith('..') ? near : script)}`;
}

/**
 * Checks, reading only, that a SQLite data directory holds a store `airlock
 * serve` made: its file is there, reads whole and has Airlock's tables. A
 * command that takes the directory's lock runs this first, so a refusal
 * leaves the directory as it was (no lock file in it).
 * @throws MissingStoreError naming where it looked and what to run instead.
 */
export function checkExistingSqliteStore(dataDir: string | undefined): void {
  const flag = '--data-dir or AIRLOCK_DATA_DIR';
  const dir = resolve(dataDir ?? '.airlock');
  const file = join(dir, SQLITE_FILE_NAME);
  if (!existsSync(file)) {
    throw new MissingStoreError(
      'store_not_found',
      `no Airlock store in ${dir} (no ${SQLITE_FILE_NAME}); check ${flag}, ` +
        `or create it with \`${selfCommand()} serve --data-dir ${shellQuoted(dataDir ?? '.airlock')}\``,
    );
  }
  const kind = sqliteFileKind(file);
  if (kind === 'damaged') {
    throw new MissingStoreError(
      'store_corrupt',
      `${file} is damaged (SQLITE_CORRUPT); restore the last good backup`,
    );
  }
  if (kind !== 'airlock') {
    const what = kind === 'not_sqlite' ? 'is not a SQLite database' : 'has no Airlock tables';
    throw new MissingStoreError(
      'not_an_airlock_store',
      `${file} ${what}: it is not an Airlock store, and was left as it was; check ${flag}`,
    );
  }
}

/**
 * Opens a store that `airlock serve` created before, and never creates one:
 * a missing SQLite file or a database without a workspace is refused, and so
 * is a file or database of another program, before anything is written to
 * it (no WAL mode, no migrations).
 *
 * A store older than this build is migrated only where no kernel may serve
 * it, since a migration under a running kernel breaks its reads: on SQLite
 * the data directory's lock is taken for the migration (a caller that holds
 * it says so with `dataDirHeld`); on PostgreSQL, where an older kernel holds
 * no lock to find, no other session may be connected to the database.
 * @throws MissingStoreError naming where it looked and what to run instead.
 * @throws OlderStoreServedError (`kernel_running`) when migrations are pending and a kernel may serve it.
 */
export async function openExistingStore(
  location: StoreLocation,
  options: { dataDirHeld?: boolean } = {},
): Promise<Store> {
  const flag = location.databaseUrl
    ? '--database-url or DATABASE_URL'
    : '--data-dir or AIRLOCK_DATA_DIR';
  if (!location.databaseUrl) checkExistingSqliteStore(location.dataDir);
  let store: Store;
  let release = () => {};
  try {
    store = await Store.open(location, Date.now, {
      existing: true,
      beforeMigrating: async (upgrade, db) => {
        if (location.databaseUrl) {
          const others = await otherPostgresSessions(db);
          if (others > 0) {
            const sessions = others === 1 ? 'another session is' : `${others} other sessions are`;
            throw new OlderStoreServedError(
              upgrade,
              `${sessions} connected to the database, perhaps an older kernel's`,
            );
          }
        } else if (!options.dataDirHeld) {
          release = holdForMigration(location.dataDir ?? '.airlock', upgrade);
        }
      },
    });
  } catch (error) {
    if (!(error instanceof NotAnAirlockStoreError)) throw error;
    throw new MissingStoreError(
      'not_an_airlock_store',
      `${error.description} has no Airlock tables: it is not an Airlock store, and was left as it was; check ${flag}`,
    );
  } finally {
    // Migrated (or refused): a kernel may start on the directory again.
    release();
  }
  if ((await listWorkspaces(store)).length === 0) {
    await store.close();
    throw new MissingStoreError(
      'store_not_found',
      `the store ${store.description} has no workspace yet; start \`${selfCommand()} serve\` on it first`,
    );
  }
  return store;
}

/**
 * Takes a SQLite data directory's lock for a migration.
 * @throws OlderStoreServedError when a kernel holds it.
 */
function holdForMigration(dataDir: string, upgrade: PendingUpgrade): () => void {
  try {
    return holdDataDir(dataDir);
  } catch (error) {
    if (!(error instanceof DataDirInUseError)) throw error;
    const pid = error.holder?.pid;
    throw new OlderStoreServedError(
      upgrade,
      `a kernel (${pid ? `pid ${pid}` : 'pid unknown'}) serves ${error.dataDir}`,
    );
  }
}
