import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { forTerminal } from '@airlock/core';
import { type FencedRow, fenceByHand } from '../kernel/verbs/restore-fence.js';
import { DataDirInUseError, holdDataDir } from '../store/sqlite/kernel-lock.js';
import type { Store } from '../store/store.js';
import { asStoreError, StoreUnavailableError } from '../store/store-errors.js';
import { parseCommandLine, storeLocationOf } from './command-line.js';
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

Stop every kernel of the store first: on SQLite the fence refuses while one
serves the directory; on PostgreSQL a kernel serving meanwhile could hand a
call to an executor before it is fenced.

Store options:
  --data-dir <dir>      SQLite data directory (env AIRLOCK_DATA_DIR; default ./.airlock)
  --database-url <url>  PostgreSQL URL (env DATABASE_URL)
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
      help: { type: 'boolean', short: 'h' },
    },
    operands: [],
  });
  if (values.help) {
    process.stdout.write(FENCE_HELP);
    return 0;
  }
  const location = storeLocationOf(values, 'airlock fence');
  let release = () => {};
  let store: Store | undefined;
  try {
    if (!location.databaseUrl) {
      // Refused before the lock is taken: a refusal makes no directory and leaves no lock file.
      checkDataDirectory(location.dataDir);
      checkExistingSqliteStore(location.dataDir);
      release = holdDataDir(location.dataDir);
    }
    store = await openExistingStore(location);
    const fenced = await fenceStore(store);
    for (const row of fenced) process.stdout.write(`${fencedLine(row)}\n`);
    process.stderr.write(fenceReport(fenced, { listed: true }));
    return 0;
  } catch (error) {
    if (error instanceof DataDirInUseError) {
      const pid = error.holder?.pid;
      process.stderr.write(
        `airlock fence: kernel_running: a kernel (${pid ? `pid ${pid}` : 'pid unknown'}) is serving ${location.dataDir}; stop it, then fence\n`,
      );
      return 1;
    }
    if (error instanceof MissingStoreError || error instanceof NotADirectoryError) {
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
