import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { forTerminal } from '@airlock/core/command-line';
import { OlderStoreServedError } from '../store/pending-upgrade.js';
import { otherSessionsOn } from '../store/postgres/connected-sessions.js';
import { postgresLogHeads } from '../store/postgres/postgres-log-heads.js';
import { type ContinuedLog, continueAfterReplacedLog } from '../store/restored-log.js';
import {
  DataDirInUseError,
  holdDataDir,
  KERNEL_LOCK_DATABASE,
} from '../store/sqlite/kernel-lock.js';
import { SQLITE_FILE_NAME } from '../store/sqlite/sqlite-backend.js';
import { storeOpenElsewhere } from '../store/sqlite/store-in-use.js';
import type { Store } from '../store/store.js';
import {
  asStoreError,
  NotAnAirlockStoreError,
  StoreNewerSchemaError,
  StoreUnavailableError,
} from '../store/store-errors.js';
import {
  checkExistingSqliteStore,
  MissingStoreError,
  openExistingStore,
} from './existing-store.js';
import type { FenceArgs } from './fence-args.js';
import { continuedReport, fencedLine, fenceReport, fenceStore } from './fence-report.js';
import { connectionRefusalDetail } from './serve-store-unreachable.js';

/**
 * Fences the store `airlock fence` was pointed at, its command line read
 * (see fence.ts); returns the exit code: 1 for a store it cannot fence, said
 * on stderr as `airlock fence: <code>: <message>`.
 */
export async function runFence({
  location,
  replacedUrl,
  evenIfConnected,
}: FenceArgs): Promise<number> {
  let release = () => {};
  let store: Store | undefined;
  try {
    if (!location.databaseUrl) {
      // Refused before the lock is taken: a refusal makes no directory and leaves no lock file.
      checkDataDirectory(location.dataDir);
      checkExistingSqliteStore(location.dataDir);
      release = holdDataDir(location.dataDir);
      // The lock file is one file anyone can delete: the store's own lock still tells a live kernel.
      const file = join(resolve(location.dataDir), SQLITE_FILE_NAME);
      if (storeOpenElsewhere(file)) {
        process.stderr.write(
          `airlock fence: kernel_running: ${forTerminal(
            `another process has ${file} open (a kernel serving it, whose ${KERNEL_LOCK_DATABASE} may have been removed; ` +
              '`fuser` or `lsof` names it): stop it, then fence',
          )}\n`,
        );
        return 1;
      }
    }
    if (location.databaseUrl && !evenIfConnected) {
      // Before the store is opened, whose pool's own sessions would count too.
      const refusal = connectedRefusal(await otherSessionsOn(location.databaseUrl));
      if (refusal) {
        process.stderr.write(`airlock fence: kernel_running: ${refusal}\n`);
        return 1;
      }
    }
    // Read before the restored store is opened: a replaced database that cannot be read changes nothing.
    const replacedHeads = replacedUrl === undefined ? null : await readReplacedHeads(replacedUrl);
    // On SQLite the directory's lock is held already: a store older than this build is migrated.
    store = await openExistingStore(location, { dataDirHeld: !location.databaseUrl });
    // Before the fence writes its events: they, too, are numbered after the replaced log.
    const continued = replacedHeads ? await continueAfterReplacedLog(store, replacedHeads) : null;
    const fenced = await fenceStore(store);
    for (const row of fenced) process.stdout.write(`${fencedLine(row)}\n`);
    process.stderr.write(
      (continued ? replacedLogReport(continued) : '') + fenceReport(fenced, { listed: true }),
    );
    return 0;
  } catch (error) {
    if (error instanceof DataDirInUseError) {
      const pid = error.holder?.pid;
      process.stderr.write(
        `airlock fence: kernel_running: a kernel (${pid ? `pid ${pid}` : 'pid unknown'}) is serving ${location.dataDir}; stop it, then fence\n`,
      );
      return 1;
    }
    if (error instanceof StoreNewerSchemaError) {
      process.stderr.write(`airlock fence: ${forTerminal(error.message)}\n`);
      return 1;
    }
    if (
      error instanceof MissingStoreError ||
      error instanceof OlderStoreServedError ||
      error instanceof NotADirectoryError ||
      error instanceof ReplacedStoreError
    ) {
      process.stderr.write(`airlock fence: ${error.code}: ${forTerminal(error.message)}\n`);
      return 1;
    }
    const code = (error as { code?: unknown } | null)?.code;
    if (!location.databaseUrl && (code === 'ENOTDIR' || code === 'EEXIST')) {
      // The data directory became a file between the check and the lock.
      const refusal = notADirectory(resolve(location.dataDir));
      process.stderr.write(`airlock fence: ${refusal.code}: ${forTerminal(refusal.message)}\n`);
      return 1;
    }
    // A URL that cannot work (its TLS, its login): what to fix, not a retry.
    const refused =
      location.databaseUrl && connectionRefusalDetail(error, '--database-url or DATABASE_URL');
    if (refused) {
      process.stderr.write(`airlock fence: store_unreachable: ${forTerminal(refused)}\n`);
      return 1;
    }
    const mapped = asStoreError(error);
    if (!(mapped instanceof StoreUnavailableError)) throw error;
    process.stderr.write(`airlock fence: ${mapped.code}: ${forTerminal(mapped.detail)}\n`);
    return 1;
  } finally {
    await store?.close().catch(() => {});
    release();
  }
}

/**
 * Why a PostgreSQL store cannot be fenced now, or null: any other session connected to its
 * database may be a kernel serving it. A role that cannot count them is not refused (the
 * docs' step, every kernel stopped, is then the only guard).
 */
function connectedRefusal(others: number | null): string | null {
  if (others === null || others === 0) return null;
  const sessions = others === 1 ? 'another session is' : `${others} other sessions are`;
  return `${sessions} connected to the database, perhaps a kernel serving it, whose calls in flight the fence would fail; stop every kernel of the store, then fence (or pass --even-if-connected once you know they are no kernel's); nothing was changed`;
}

/** A --data-dir that is a file, or lies under one. */
class NotADirectoryError extends Error {
  readonly code = 'data_dir_not_a_directory';
  constructor(message: string) {
    super(message);
    this.name = 'NotADirectoryError';
  }
}

function notADirectory(dir: string, under = false): NotADirectoryError {
  return new NotADirectoryError(
    `the data directory ${dir} ${under ? 'lies under a file' : 'is a file'}, not a directory; check --data-dir (or AIRLOCK_DATA_DIR)`,
  );
}

/**
 * Refuses a data directory that is a file or lies under one; one that does
 * not exist is refused next as no store.
 * @throws NotADirectoryError `data_dir_not_a_directory`.
 */
function checkDataDirectory(dataDir: string): void {
  const dir = resolve(dataDir);
  let isDirectory: boolean;
  try {
    isDirectory = statSync(dir).isDirectory();
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOTDIR') throw notADirectory(dir, true);
    // Not there (ENOENT): no store, which the store check says next.
    return;
  }
  if (!isDirectory) throw notADirectory(dir);
}

/** The replaced database could not be read for its event numbers; nothing was changed. */
class ReplacedStoreError extends Error {
  constructor(
    readonly code: 'not_an_airlock_store' | 'store_unavailable' | 'store_unreachable',
    message: string,
  ) {
    super(message);
    this.name = 'ReplacedStoreError';
  }
}

/**
 * Each workspace's last event number in the replaced database.
 * @throws ReplacedStoreError when it is no Airlock store or cannot be read.
 */
async function readReplacedHeads(databaseUrl: string): Promise<Map<string, number>> {
  try {
    return await postgresLogHeads(databaseUrl);
  } catch (error) {
    const check = 'check --replaced-database-url; nothing was changed';
    if (error instanceof NotAnAirlockStoreError) {
      throw new ReplacedStoreError(
        'not_an_airlock_store',
        `the replaced database ${error.description} has no Airlock tables; ${check}`,
      );
    }
    const refused = connectionRefusalDetail(error, '--replaced-database-url');
    if (refused) {
      throw new ReplacedStoreError(
        'store_unreachable',
        `reading the replaced database: ${refused}; nothing was changed`,
      );
    }
    const mapped = asStoreError(error);
    if (!(mapped instanceof StoreUnavailableError)) throw error;
    throw new ReplacedStoreError(
      'store_unavailable',
      `reading the replaced database: ${mapped.detail}; check --replaced-database-url`,
    );
  }
}

/** What `--replaced-database-url` did to the numbering, saying so when it changed nothing. */
function replacedLogReport(continued: readonly ContinuedLog[]): string {
  if (continued.length > 0) return continuedReport(continued, 'read');
  return (
    "numbering unchanged: no workspace's log in the replaced database goes past the restored one's " +
    '(was the same database named twice, or was it fenced this way before?)\n'
  );
}
