import { flagText, parseCommandLine, UsageError } from './command-line.js';
import { checkedStoreLocation, checkPostgresUrl } from './database-url.js';

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
serves the directory; on PostgreSQL it refuses while another session is
connected to the database (a kernel serving it could hand a call to an
executor before it is fenced, or have one in flight the fence would fail):
--even-if-connected fences anyway, once you know those sessions are no
kernel's (a psql, a monitoring agent).

Store options:
  --data-dir <dir>      SQLite data directory (env AIRLOCK_DATA_DIR; default ./.airlock)
  --database-url <url>  PostgreSQL URL (env DATABASE_URL)
  --replaced-database-url <url>
                        the PostgreSQL database the restored one replaces
                        (with --database-url); read only
  --even-if-connected   PostgreSQL: fence although other sessions are
                        connected to the database
`;

/** What `airlock fence` was asked to fence, its command line read. */
export interface FenceArgs {
  readonly location: { dataDir: string; databaseUrl: string | undefined };
  /** The PostgreSQL database the restored one replaces, whose event numbers the log continues after. */
  readonly replacedUrl: string | undefined;
  /** PostgreSQL: fence although other sessions are connected to the database. */
  readonly evenIfConnected: boolean;
}

/**
 * Reads `airlock fence [store options]` with nothing loaded but Node's parser.
 * @returns what to fence, or `{ help }` when --help asked for the help.
 * @throws UsageError (exit 2) on an unknown flag, an argument, an empty flag,
 *   a database URL that is not postgres:// or a --replaced-database-url without --database-url.
 */
export function readFenceArgs(argv: string[]): FenceArgs | { help: true } {
  const { values } = parseCommandLine(argv, {
    command: 'airlock fence',
    flags: {
      'data-dir': { type: 'string' },
      'database-url': { type: 'string' },
      'replaced-database-url': { type: 'string' },
      'even-if-connected': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    operands: [],
  });
  if (values.help) return { help: true };
  const location = checkedStoreLocation(values, 'airlock fence');
  if (values['even-if-connected'] && !location.databaseUrl) {
    throw new UsageError(
      'airlock fence: --even-if-connected is for a PostgreSQL store (--database-url); on SQLite the fence refuses while a kernel holds the data directory',
    );
  }
  return {
    location,
    replacedUrl: replacedDatabaseUrl(values, location.databaseUrl),
    evenIfConnected: values['even-if-connected'] === true,
  };
}

/**
 * The --replaced-database-url given, when there is one.
 * @throws UsageError when it is empty, not a postgres:// URL, or given without --database-url.
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
  return checkPostgresUrl('airlock fence', '--replaced-database-url', replaced);
}
