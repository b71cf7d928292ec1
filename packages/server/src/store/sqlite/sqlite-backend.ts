import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { AdvisoryLockHold, OpenedBackend, StoreBackend } from '../backend.js';
import type { Durability } from '../durability.js';
import { runPrepared } from '../prepared.js';
import { createPrivateFile, makePrivateDir } from '../private-dir.js';
import type { Database } from '../schema.js';
import { Checkpointer } from './checkpointer.js';
import { GroupCommit } from './group-commit.js';
import { appendSqliteEvents } from './sqlite-event-log.js';

/** The SQLite file inside a data directory. */
export const SQLITE_FILE_NAME = 'airlock.sqlite';

const STATEMENT_CACHE_LIMIT = 500;

/**
 * SQLite's `synchronous` for a durability mode. In WAL mode, FULL syncs the
 * WAL at every COMMIT (one fsync per group commit); NORMAL syncs it only at
 * checkpoints.
 */
export function sqliteSynchronous(mode: Durability): 'FULL' | 'NORMAL' {
  return mode === 'full' ? 'FULL' : 'NORMAL';
}

/**
 * Reuses prepared statements by SQL text: Kysely prepares on every query, and
 * preparing costs more than running most of ours.
 */
function cacheStatements(database: SqliteDatabase.Database): void {
  const prepare = database.prepare.bind(database);
  const cache = new Map<string, SqliteDatabase.Statement>();
  database.prepare = ((source: string) => {
    let statement = cache.get(source);
    if (!statement) {
      if (cache.size >= STATEMENT_CACHE_LIMIT) cache.clear();
      statement = prepare(source);
      cache.set(source, statement);
    }
    return statement;
  }) as typeof database.prepare;
}

// SQLite's primary codes (better-sqlite3 names them SQLITE_FULL, SQLITE_IOERR_WRITE, ...)
// that say the file cannot be written now, rather than that the statement is wrong.
const SQLITE_UNAVAILABLE = /^SQLITE_(FULL|READONLY|IOERR|CANTOPEN|BUSY)(_|$)/;

/** The turn of a process that owns its store alone: nobody to take turns with. */
const ALONE: AdvisoryLockHold = { confirm: async () => {} };

/**
 * The embedded store: one SQLite file in WAL mode in a data directory, which
 * one kernel process serves. Concurrent units of work share COMMITs (see
 * GroupCommit), and checkpoints run on a worker thread (see Checkpointer).
 */
export const sqliteBackend: StoreBackend = {
  dialect: 'sqlite',

  serves: (location) => !location.databaseUrl,

  async open(location, durability): Promise<OpenedBackend> {
    const dir = resolve(location.dataDir ?? '.airlock');
    // Only its owner reads a new data directory: it holds every call's input and result.
    makePrivateDir(dir);
    const file = join(dir, SQLITE_FILE_NAME);
    // Its owner's alone even where the directory is not (one an operator made): so are its -wal and -shm.
    createPrivateFile(file);
    const database = new SqliteDatabase(file);
    database.pragma('journal_mode = WAL');
    // FULL syncs the WAL in every COMMIT, which GroupCommit shares among a batch's answers.
    database.pragma(`synchronous = ${sqliteSynchronous(durability)}`);
    database.pragma('busy_timeout = 5000');
    database.pragma('foreign_keys = ON');
    // Savepoints (one per unit of work, see GroupCommit) journal in memory, never in a temp file.
    database.pragma('temp_store = MEMORY');
    // Checkpoints run on a worker thread (see Checkpointer), never in a commit.
    database.pragma('wal_autocheckpoint = 0');
    database.pragma('journal_size_limit = 67108864');
    cacheStatements(database);
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
    const groupCommit = new GroupCommit(db, database);
    const checkpointer = new Checkpointer(file, () => {
      database.pragma('wal_autocheckpoint = 1000');
    });
    checkpointer.onLarge = () => groupCommit.requestCheckpoint();
    return {
      db,
      description: `sqlite ${file}`,
      dataDir: dir,
      walFile() {
        const path = `${file}-wal`;
        try {
          return { path, bytes: statSync(path).size };
        } catch {
          return { path, bytes: 0 };
        }
      },
      commitUnit: (unit) =>
        groupCommit.run(async (trx, sequences) => {
          const done = await unit(trx);
          for (const { key, build, values } of done.writes) {
            await runPrepared(trx, 'sqlite', key, build, values);
          }
          const written = await appendSqliteEvents(trx, sequences, done.events, done.now);
          return { value: done.value, written, callbacks: done.callbacks };
        }),
      retryable: () => false,
      observeCommits(observer) {
        groupCommit.observer = observer;
      },
      // One process owns the file: no other process commits to be heard.
      listen: async () => ({ want: async () => {}, close: async () => {} }),
      takeTurn: async (_options, work) => ({ held: true, value: await work(ALONE) }),
      async close() {
        await groupCommit.drain();
        await checkpointer.stop();
        database.pragma('wal_checkpoint(TRUNCATE)');
        await db.destroy();
      },
    };
  },

  unavailableReason(error) {
    const { code } = error;
    if (typeof code !== 'string' || !SQLITE_UNAVAILABLE.test(code)) return null;
    return code === 'SQLITE_FULL' ? 'disk full' : code;
  },

  // SQLite keeps any text it is given, U+0000 included.
  refusedTextReason: () => null,
};
