import { parseCommandLine, UsageError } from './command-line.js';
import { checkedStoreLocation } from './database-url.js';

const STORE_OPTIONS = `Store options:
  --data-dir <dir>      SQLite data directory (env AIRLOCK_DATA_DIR; default ./.airlock)
  --database-url <url>  PostgreSQL URL (env DATABASE_URL): refused, use pg_dump / pg_restore
                        (docs/backup-restore.md)
`;

/** `airlock backup --help` */
export const BACKUP_HELP = `Usage: airlock backup <file> [store options]

Copies the SQLite store to <file> while the kernel keeps serving (SQLite's
online backup API, from a connection of its own): the copy holds everything
committed when it finished, as one consistent snapshot. Prints its progress
on stderr and, at the end, the file, its size and schema. Writes the file's
SHA-256 beside it in <file>.sha256 (as sha256sum does; keep the two together),
which restore checks. Never overwrites a file
nor makes a directory: <file> is a new file in a directory that exists. The
copy is a SQLite file, synced to disk before the command says done, so it
cannot go to standard output: "-" is refused (name a file named - as ./-).
Ctrl-C (SIGINT), SIGTERM or SIGHUP before the copy is whole stops it and
removes the partial copy (exit 130, 143 or 129); a second signal kills at once.

${STORE_OPTIONS}`;

/** `airlock restore --help` */
export const RESTORE_HELP = `Usage: airlock restore <file> [store options]

Puts a backup made by \`airlock backup\` in place as the data directory's
store. Stop the kernel first: a restore refuses while one serves the
directory. The file is checked before anything moves (its SHA-256 against
<file>.sha256 when there is one, else with a warning; an Airlock store,
intact, not from a newer Airlock), migrated to this version and fenced; the
store that was there is moved aside into <data-dir>/before-restore-<time>/.
A store file copied with its -wal (a volume snapshot) is restored with the
commits in its WAL; the file and its -wal are only read. The backup is read
from a file, never from standard input: "-" is refused (./- names a file).
Ctrl-C (SIGINT), SIGTERM or SIGHUP before the backup is in place stops it
and leaves the data directory as it was (exit 130, 143 or 129).

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

/**
 * Why "-" is no <file>: a backup is a SQLite file that SQLite writes page by
 * page and the command syncs (or reads back whole) before it says done, which a
 * pipe does not allow. A file literally named "-" is still reached as ./-.
 */
const STANDARD_STREAM = {
  'airlock backup':
    'airlock backup: "-" would be standard output, and a backup is a SQLite file written and synced in place; ' +
    'name a new file (such as ./airlock-backup.sqlite), then copy or compress that file',
  'airlock restore':
    'airlock restore: "-" would be standard input, and a restore reads a SQLite file in place; ' +
    'name the file airlock backup wrote (./- for a file named -)',
} as const;

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
 * @throws UsageError on an unknown option, an empty store flag, a database URL
 *   that is not postgres://, an argument past <file>, or "-" as <file>.
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
  if (values.help === true) return { help: 'asked' };
  const file = positionals[0];
  if (!file) return { help: 'no_file' };
  if (file === '-') throw new UsageError(STANDARD_STREAM[command]);
  const location = checkedStoreLocation(values, command);
  return { file, ...location, fence: values['no-fence'] !== true };
}
