import { chmodSync, copyFileSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { areAirlockTables, StaticMigrations } from '../migrations.js';
import {
  createPrivateFile,
  makePrivateDir,
  PRIVATE_DIR_MODE,
  PRIVATE_FILE_MODE,
} from '../private-dir.js';
import { BackupError } from './backup-error.js';
import { partialCopyOf, placeWithoutReplacing } from './backup-placement.js';
import { clearStaging, swapInRestoredStore } from './restore-swap.js';
import { SQLITE_FILE_NAME } from './sqlite-backend.js';
import {
  checkWholeFile,
  damageOfCopy,
  fileStamps,
  replacedHeads,
  unreadable,
  walOf,
} from './sqlite-files.js';
import { sqliteTables } from './store-file.js';

export { BackupError } from './backup-error.js';

/** How far a backup has gone, in database pages. */
export interface BackupProgress {
  totalPages: number;
  remainingPages: number;
  /** True once the source changed under a stepwise copy and the rest is copied in one step. */
  oneStep: boolean;
}

/** What a finished backup holds. */
export interface BackupSummary {
  file: string;
  bytes: number;
  pages: number;
  /** The last migration the backup's schema has. */
  schema: string;
  workspaces: number;
}

/** Pages copied per step (4 MiB at SQLite's default page size), so progress can be shown. */
const PAGES_PER_STEP = 1024;

/** The names of the migrations this build knows, in order. */
export async function knownMigrations(): Promise<string[]> {
  return Object.keys(await new StaticMigrations('sqlite').getMigrations()).sort();
}

/** A SQLite file's Airlock schema: the migrations it had applied, and its workspace count. */
interface StoreFileFacts {
  migrations: string[];
  workspaces: number;
}

/**
 * Reads what a SQLite file holds as an Airlock store.
 * @throws BackupError `not_an_airlock_store` (not SQLite, or no Airlock tables),
 *   `backup_corrupt` (SQLite's integrity check fails).
 */
function storeFileFacts(database: SqliteDatabase.Database, file: string): StoreFileFacts {
  try {
    if (!areAirlockTables(sqliteTables(database))) {
      throw new BackupError(
        'not_an_airlock_store',
        `${file} is a SQLite file but not an Airlock store (no airlock_migrations or workspaces table)`,
      );
    }
    // The full check, not quick_check: an index whose keys no longer match its table's rows
    // reads page by page, yet a lookup by it misses rows (a run's tasks, a credential).
    const check = String(database.pragma('integrity_check(1)', { simple: true }));
    if (check !== 'ok') {
      throw new BackupError(
        'backup_corrupt',
        `${file} fails SQLite's integrity check: ${check}`,
        check,
      );
    }
    const migrations = (
      database.prepare('select name from airlock_migrations order by name').all() as {
        name: string;
      }[]
    ).map((row) => row.name);
    const { count } = database.prepare('select count(*) as count from workspaces').get() as {
      count: number;
    };
    return { migrations, workspaces: count };
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw unreadable(error, file);
  }
}

/**
 * Copies the SQLite store of a data directory to `target` with SQLite's
 * online backup API, from a connection of its own: a kernel (this process or
 * another) keeps serving meanwhile. The copy is consistent as of one moment:
 * when another connection writes between two steps, SQLite restarts the copy,
 * and the rest is then copied in a single step (one read transaction, which
 * in WAL mode never blocks the kernel's writes). The result is one
 * self-contained file (rollback journal mode), written beside the target
 * (under a name of this backup's own) and put in place only once complete
 * and checked, never over a file made meanwhile (see placeWithoutReplacing).
 * @throws BackupError `store_not_found`, `backup_target_exists`.
 */
export async function backupSqliteStore(options: {
  dataDir: string;
  target: string;
  onProgress?: ((progress: BackupProgress) => void) | undefined;
  /** Runs on the copy before it is checked: tests damage it there. */
  afterCopy?: ((copy: string) => void) | undefined;
}): Promise<BackupSummary> {
  const source = join(resolve(options.dataDir), SQLITE_FILE_NAME);
  if (!existsSync(source)) {
    throw new BackupError('store_not_found', `no Airlock store at ${source}; check --data-dir`);
  }
  const target = resolve(options.target);
  if (existsSync(target)) {
    throw new BackupError(
      'backup_target_exists',
      `${target} exists; name a new file (a backup never overwrites one)`,
    );
  }
  makePrivateDir(dirname(target));
  const partial = partialCopyOf(target);
  try {
    return await copyIntoPlace({ ...options, source, partial, target });
  } catch (error) {
    // Refused or failed, the backup leaves nothing beside the target, not even its unchecked copy.
    removeCopy(partial);
    throw error;
  }
}

/** Removes a copy being made and the journal files SQLite may have made beside it. */
function removeCopy(file: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal'])
    rmSync(`${file}${suffix}`, { force: true });
}

/** Copies the store to `partial`, checks the copy, and renames it to `target`. */
async function copyIntoPlace(options: {
  source: string;
  partial: string;
  target: string;
  onProgress?: ((progress: BackupProgress) => void) | undefined;
  afterCopy?: ((copy: string) => void) | undefined;
}): Promise<BackupSummary> {
  const { partial, target } = options;
  const database = new SqliteDatabase(options.source, { readonly: true, fileMustExist: true });
  let oneStep = false;
  let lastRemaining = Number.POSITIVE_INFINITY;
  try {
    database.pragma('busy_timeout = 5000');
    // Private before the first page lands: a reader who opened it meanwhile would keep reading after a chmod.
    createPrivateFile(partial);
    const result = await database.backup(partial, {
      progress: ({ totalPages, remainingPages }) => {
        // The copy started over: another connection wrote between two steps.
        if (remainingPages > lastRemaining) oneStep = true;
        lastRemaining = remainingPages;
        options.onProgress?.({ totalPages, remainingPages, oneStep });
        return oneStep ? 0x7fffffff : PAGES_PER_STEP;
      },
    });
    options.onProgress?.({ totalPages: result.totalPages, remainingPages: 0, oneStep });
  } finally {
    database.close();
  }
  options.afterCopy?.(partial);
  const copy = new SqliteDatabase(partial, { fileMustExist: true });
  let facts: StoreFileFacts;
  let pages: number;
  try {
    // One file, no -wal beside it: a backup is copied and moved as a single file.
    copy.pragma('journal_mode = DELETE');
    facts = storeFileFacts(copy, target);
    pages = copy.pragma('page_count', { simple: true }) as number;
  } catch (error) {
    throw damageOfCopy(error, options.source, target);
  } finally {
    copy.close();
  }
  // A backup holds every call's input and the credentials' hashes: its owner's alone, whatever the umask.
  chmodSync(partial, PRIVATE_FILE_MODE);
  placeWithoutReplacing(partial, target);
  return {
    file: target,
    bytes: statSync(target).size,
    pages,
    schema: facts.migrations.at(-1) ?? '',
    workspaces: facts.workspaces,
  };
}

/** What a restore did. */
export interface RestoreSummary {
  file: string;
  /** The migration the restored store had; the kernel's next start migrates it to this build's. */
  schema: string;
  workspaces: number;
  /** Where the store that was there before now lies, or null when there was none. */
  previous: string | null;
  /**
   * The file's `-wal` whose commits the restore took along (a store copied with its
   * WAL, such as a volume snapshot), or null when there was none to take.
   */
  wal: string | null;
  /**
   * Whether the event log heads of the store that was there were read (for the restored
   * log to go on after them): `none` when there was no store, `unreadable` when its
   * file could not be read as an Airlock store.
   */
  replacedLog: 'read' | 'none' | 'unreadable';
}

/**
 * Puts a backup file in place as a data directory's SQLite store, with the
 * kernel stopped. The file is copied and checked first (an Airlock store,
 * intact, no migration this build does not know); only then is the current
 * store kept aside in `before-restore-<time>/` and the copy renamed into place
 * (restore-swap.ts: the directory holds a whole store at every moment). `prepare` works on the copy before it
 * moves (migrating and fencing it), in a data directory of its own
 * (`<data-dir>/restoring/`): a restore cut short before the rename leaves
 * the store that was there in place, never an unprepared copy.
 * A file in WAL mode is copied with its `-wal` (a store copied with its
 * WAL, such as a volume snapshot), whose commits SQLite then recovers in the
 * copy: the file and its WAL are only read.
 * @throws BackupError `kernel_running`, `backup_not_found`, `restoring_dir_in_use`,
 *   `not_an_airlock_store`, `backup_corrupt`, `backup_newer_schema`,
 *   `backup_changed` (the file or its WAL changed while they were copied).
 */
export async function restoreSqliteStore(options: {
  dataDir: string;
  file: string;
  /** The kernel serving the directory, if any, with its pid when kernel.lock names it (see kernel-lock.ts). */
  runningKernel: { pid: number | null } | null;
  now?: Date | undefined;
  /**
   * Works on the checked copy, given the data directory it lies in, before it is put in
   * place; and the event log heads of the store it replaces (see replacedHeads), for the
   * copy to number its log on after them (store/restored-log.ts).
   */
  prepare?:
    | ((stagingDir: string, replaced: ReadonlyMap<string, number> | null) => Promise<void>)
    | undefined;
  /** Runs just before the copy is renamed into place: tests cut a restore short there. */
  beforeRename?: (() => void) | undefined;
}): Promise<RestoreSummary> {
  const dir = resolve(options.dataDir);
  if (options.runningKernel) {
    throw new BackupError(
      'kernel_running',
      `a kernel (${options.runningKernel.pid === null ? 'pid unknown' : `pid ${options.runningKernel.pid}`}) is serving ${dir}; stop it, then restore`,
    );
  }
  const file = resolve(options.file);
  if (!existsSync(file) || !statSync(file).isFile()) {
    throw new BackupError('backup_not_found', `no backup file at ${file}`);
  }
  makePrivateDir(dir);
  const staging = join(dir, 'restoring');
  const incoming = join(staging, SQLITE_FILE_NAME);
  clearStaging(staging, file);
  let facts: StoreFileFacts;
  let wal: string | null = null;
  const current = join(dir, SQLITE_FILE_NAME);
  let replaced: Map<string, number> | 'none' | 'unreadable';
  try {
    mkdirSync(staging, { mode: PRIVATE_DIR_MODE });
    wal = walOf(file);
    // A file and its WAL copied while a kernel writes them (a commit, a checkpoint) need not
    // fit together: what either looked like before and after the copies tells.
    const before = fileStamps([file, wal]);
    copyFileSync(file, incoming);
    if (wal) {
      copyFileSync(wal, `${incoming}-wal`);
      chmodSync(`${incoming}-wal`, PRIVATE_FILE_MODE);
    }
    if (fileStamps([file, wal]) !== before) {
      throw new BackupError(
        'backup_changed',
        `${file}${wal ? ' or its -wal' : ''} changed while it was copied: a kernel is serving it; ` +
          'stop that kernel, or copy its store with `airlock backup` and restore that file',
      );
    }
    // The store is the data directory's owner's alone, whatever mode the backup file had.
    chmodSync(incoming, PRIVATE_FILE_MODE);
    // A file with a WAL is only whole with it: checked once its frames are copied in (below).
    if (!wal) checkWholeFile(incoming, file);
    // Only the copy is opened: SQLite recovers the copied WAL there, never beside the file.
    const database = openChecked(incoming, file);
    try {
      if (wal) {
        // Every frame into the copy's file, so the store is whole without its -wal.
        const [done] = database.pragma('wal_checkpoint(TRUNCATE)') as {
          busy: number;
          log: number;
          checkpointed: number;
        }[];
        if (done?.busy !== 0 || done.log !== done.checkpointed) {
          throw new BackupError(
            'backup_corrupt',
            `${wal} could not be copied into ${file}'s copy (checkpoint ${JSON.stringify(done)})`,
          );
        }
        checkWholeFile(incoming, file);
      }
      facts = storeFileFacts(database, file);
      const knownList = await knownMigrations();
      const known = new Set(knownList);
      // Tables of the right names prove nothing: an Airlock store has applied Airlock's first
      // migrations in order (the kernel's next start applies the rest).
      const applied = facts.migrations.filter((name) => known.has(name));
      if (applied.length === 0 || applied.some((name, i) => name !== knownList[i])) {
        throw new BackupError(
          'not_an_airlock_store',
          `${file} has tables named like Airlock's but no Airlock migration history ` +
            `(${applied.length === 0 ? 'no Airlock migration recorded' : 'migrations missing in between'}); ` +
            'restore a file `airlock backup` wrote',
        );
      }
      const unknown = facts.migrations.filter((name) => !known.has(name));
      if (unknown.length > 0) {
        throw new BackupError(
          'backup_newer_schema',
          `${file} comes from a newer Airlock (migrations ${unknown.join(', ')} are unknown to this build); restore it with that version or later`,
        );
      }
      database.pragma('journal_mode = WAL');
    } finally {
      database.close();
    }
    replaced = existsSync(current) ? replacedHeads(current) : 'none';
    await options.prepare?.(staging, replaced instanceof Map ? replaced : null);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  for (const suffix of ['-wal', '-shm']) rmSync(`${incoming}${suffix}`, { force: true });
  const previous = swapInRestoredStore({
    dir,
    incoming,
    stamp: (options.now ?? new Date()).toISOString().replace(/[:.]/g, '-'),
    beforeRename: options.beforeRename,
  });
  rmSync(staging, { recursive: true, force: true });
  return {
    file: current,
    schema: facts.migrations.at(-1) ?? '',
    workspaces: facts.workspaces,
    previous,
    wal,
    replacedLog: replaced instanceof Map ? 'read' : replaced,
  };
}

/**
 * Opens a copied backup file for checking.
 * @throws BackupError `not_an_airlock_store` when SQLite does not read it.
 */
function openChecked(copy: string, file: string): SqliteDatabase.Database {
  try {
    const database = new SqliteDatabase(copy, { fileMustExist: true });
    database.pragma('schema_version');
    return database;
  } catch (error) {
    throw unreadable(error, file);
  }
}
