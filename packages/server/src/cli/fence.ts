import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { forTerminal } from '@airlock/core';
import { type FencedRow, fenceByHand } from '../kernel/verbs/restore-fence.js';
import { postgresLogHeads } from '../store/postgres/postgres-log-heads.js';
import { type ContinuedLog, continueAfterReplacedLog } from '../store/restored-log.js';
import { DataDirInUseError, holdDataDir } from '../store/sqlite/kernel-lock.js';
import type { Store } from '../store/store.js';
import {
  asStoreError,
  NotAnAirlockStoreError,
  StoreNewerSchemaError,
  StoreUnavailableError,
} from '../store/store-errors.js';
import { flagText, parseCommandLine, storeLocationOf, UsageError } from './command-line.js';
import {
  checkExistingSqliteStore,
  MissingStoreError,
  openExistingStore,
} from './existing-store.js';

/** `airlock fence --help` */
export const FENCE_HELP = `Usage: airlock fence [store options]

Fences a store restored from a backup by other means than \`airlock restore\`
(pg_restore, a copy of the data directory, a volume snapshot), before any
kernel serves it. A call that was granted or claimed when the backup was
taken may have run after it: each such call fails with outcome_unknown and
holds its run until a person retries it (it crosses the approval stage again:
granted, it runs again) or abandons or stops the run; no executor claims it
before. Prints one line per fenced call on stdout (workspace, run, task, kind,
tool, and whether it was runnable or claimed); fencing again fences nothing
twice. \`airlock restore\` fences by itself.

After a pg_restore into a new database, give the database it replaces with
--replaced-database-url: its event numbers are read (only read), and the
restored log is numbered on after them, as \`airlock restore\` does on
SQLite, so feed clients that read events the restore undid are told to
resynchronise instead of skipping new events.

Stop every kernel of the store first: on SQLite the fence refuses while one
serves the directory; on PostgreSQL a kernel serving meanwhile could hand a
call to an executor before it is fenced.

Store options:
  --data-dir <dir>      SQLite data directory (env AIRLOCK_DATA_DIR; default ./.airlock)
  --database-url <url>  PostgreSQL URL (env DATABASE_URL)
  --replaced-database-url <url>
                        the PostgreSQL database the restored one replaces
                        (with --database-url); read only
`;

/** What a fence did: the rows it moved. */
export type FenceOutcome = readonly FencedRow[];

/** Fences an open store (see kernel/verbs/restore-fence.ts). */
export function fenceStore(store: Store): Promise<FenceOutcome> {
  return fenceByHand(store);
}

/** One fenced call as a line of tab-separated fields. */
export function fencedLine(row: FencedRow): string {
  return [
    row.workspace_id,
    row.run_id,
    row.key,
    row.kind,
    forTerminal(row.tool_name),
    row.was,
  ].join('\t');
}

/**
 * What an operator reads after a fence: how many calls, what to do with them,
 * and (unless `listed` elsewhere) one line per call.
 */
export function fenceReport(fenced: FenceOutcome, options: { listed?: boolean } = {}): string {
  if (fenced.length === 0) {
    return 'fenced nothing: no call was granted or claimed when the backup was taken\n';
  }
  const runs = new Set(fenced.map((row) => row.run_id)).size;
  return (
    `fenced ${fenced.length} call(s) in ${runs} run(s) that were granted or claimed when the backup was taken ` +
    '(they may have run since): each failed with outcome_unknown and holds its run; ' +
    'retry one to send it through approval again, or abandon or stop its run (docs/operations.md, "Fencing")\n' +
    (options.listed ? '' : fenced.map((row) => `  ${fencedLine(row)}\n`).join(''))
  );
}

/** Runs `airlock fence [store options]`; returns the exit code. */
export async function fence(argv: string[]): Promise<number> {
  const { values } = parseCommandLine(argv, {
    command: 'airlock fence',
    flags: {
      'data-dir': { type: 'string' },
      'database-url': { type: 'string' },
      'replaced-database-url': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    operands: [],
  });
  if (values.help) {
    process.stdout.write(FENCE_HELP);
    return 0;
  }
  const location = storeLocationOf(values, 'airlock fence');
  const replacedUrl = replacedDatabaseUrl(values, location.databaseUrl);
  let release = () => {};
  let store: Store | undefined;
  try {
    if (!location.databaseUrl) {
      // Refused before the lock is taken: a refusal makes no directory and leaves no lock file.
      checkDataDirectory(location.dataDir);
      checkExistingSqliteStore(location.dataDir);
      release = holdDataDir(location.dataDir);
    }
    // Read before the restored store is opened: a replaced database that cannot be read changes nothing.
    const replacedHeads = replacedUrl === undefined ? null : await readReplacedHeads(replacedUrl);
    store = await openExistingStore(location);
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
    const mapped = asStoreError(error);
    if (!(mapped instanceof StoreUnavailableError)) throw error;
    process.stderr.write(`airlock fence: ${mapped.code}: ${forTerminal(mapped.detail)}\n`);
    return 1;
  } finally {
    await store?.close().catch(() => {});
    release();
  }
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

/**
 * The --replaced-database-url given, when there is one.
 * @throws UsageError when it is empty, or given without --database-url.
 */
function replacedDatabaseUrl(
  values: Parameters<typeof flagText>[0],
  databaseUrl: string | undefined,
): string | undefined {
  const replaced = flagText(values, 'replaced-database-url');
  if (replaced === undefined) return undefined;
  if (replaced === '') {
    throw new UsageError(
      'airlock fence: --replaced-database-url is empty: give it a value, or leave the flag out',
    );
  }
  if (!databaseUrl) {
    throw new UsageError(
      'airlock fence: --replaced-database-url numbers a PostgreSQL store on after the one it replaced; ' +
        'give the restored database with --database-url (on SQLite, airlock restore does this by itself)',
    );
  }
  return replaced;
}

/** The replaced database could not be read for its event numbers; nothing was changed. */
class ReplacedStoreError extends Error {
  constructor(
    readonly code: 'not_an_airlock_store' | 'store_unavailable',
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

/**
 * What a restore did to the event log's numbering: per workspace whose
 * replaced log went past the backup, where new events start and who is told
 * to resynchronise; or that the replaced store could not be read for it.
 */
export function continuedReport(
  continued: readonly ContinuedLog[],
  replacedLog: 'read' | 'none' | 'unreadable',
): string {
  if (replacedLog === 'unreadable') {
    return (
      'the store that was there could not be read for its event numbers: new events are numbered ' +
      "after the backup's, and feed clients that read past the backup are not told to resynchronise; " +
      'restart them (docs/operations.md, "Backup and restore")\n'
    );
  }
  return continued
    .map(
      (log) =>
        `workspace ${log.workspaceId}: the replaced store's events ${log.after + 1} to ${log.through} are undone; ` +
        `new events are numbered from ${log.through + 2}, and feed clients that had read past ${log.after} ` +
        'are told to resynchronise\n',
    )
    .join('');
}
