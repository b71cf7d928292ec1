import { parseCommandLine, storeLocationOf } from './command-line.js';

const STORE_OPTIONS = `Store options:
  --data-dir <dir>      SQLite data directory (env AIRLOCK_DATA_DIR; default ./.airlock)
  --database-url <url>  PostgreSQL URL (env DATABASE_URL): refused, use pg_dump / pg_restore
                        (docs/operations.md, "Backup and restore")
`;

/** `airlock backup --help` */
export const BACKUP_HELP = `Usage: airlock backup <file> [store options]

Copies the SQLite store to <file> while the kernel keeps serving (SQLite's
online backup API, from a connection of its own): the copy holds everything
committed when it finished, as one consistent snapshot. Prints its progress
on stderr and, at the end, the file, its size and schema. Never overwrites a file
nor makes a directory: <file> is a new file in a directory that exists.

${STORE_OPTIONS}`;

/** `airlock restore --help` */
export const RESTORE_HELP = `Usage: airlock restore <file> [store options]

Puts a backup made by \`airlock backup\` in place as the data directory's
store. Stop the kernel first: a restore refuses while one serves the
directory. The file is checked before anything moves (an Airlock store,
intact, not from a newer Airlock), migrated to this version and fenced; the
store that was there is moved aside into <data-dir>/before-restore-<time>/.
A store file copied with its -wal (a volume snapshot) is restored with the
commits in its WAL; the file and its -wal are only read.

Fencing: a call that was granted or claimed when the backup was taken may
have run after it. Each such call fails with outcome_unknown and holds its
run until a person retries it (it crosses the approval stage again: granted,
it runs again) or abandons or stops the run; no executor claims it before.
The restore lists them.

Options:
  --no-fence            keep granted and claimed calls as the backup has them:
                        executors claim and run them again (only when nothing
                        ran after the backup, e.g. it was taken with the kernel stopped)

${STORE_OPTIONS}`;

/** What `airlock backup` or `airlock restore` was asked to do, its command line read. */
export interface BackupArgs {
  /** The backup file: the copy to make, or the one to restore. */
  readonly file: string;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  /** False when `restore --no-fence` keeps granted and claimed calls as the backup has them. */
  readonly fence: boolean;
}

/**
 * Reads `airlock backup|restore <file> [store options]` with nothing loaded
 * but Node's parser.
 * @returns what to do, or `{ help }` when the help is to be printed: asked
 *   for (exit 0) or without <file> (exit 2).
 * @throws UsageError on an unknown option, an empty store flag or an argument past <file>.
 */
export function readBackupArgs(
  argv: string[],
  command: 'airlock backup' | 'airlock restore',
): BackupArgs | { help: 'asked' | 'no_file' } {
  const { values, positionals } = parseCommandLine(argv, {
    command,
    flags: {
      'data-dir': { type: 'string' },
      'database-url': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      ...(command === 'airlock restore' ? { 'no-fence': { type: 'boolean' as const } } : {}),
    },
    operands: ['<file>'],
  });
  const location = storeLocationOf(values, command);
  const file = positionals[0];
  if (values.help === true) return { help: 'asked' };
  if (!file) return { help: 'no_file' };
  return { file, ...location, fence: values['no-fence'] !== true };
}
