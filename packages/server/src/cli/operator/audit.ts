import { once } from 'node:events';
import {
  elapsedSince,
  parseDuration,
  progressLine,
  shellQuoted,
  terminalJson,
  unknownVerbLine,
} from '@airlock/core/command-line';
import { shownValue } from '../shown-value.js';
import {
  CONNECTION_HELP,
  connectionFrom,
  describeFailure,
  OperatorError,
  parseOperatorArgs,
  UsageError,
} from './connection.js';
import { parseIdFilter } from './filter-values.js';
import { parseWholeNumber } from './paging.js';

/** `airlock audit --help` */
export const AUDIT_HELP = `Usage:
  airlock audit export [--since <time>] [--after <seq>] [--run <run-id>] [--newest]

Writes the workspace's decisions (rule, person, clock, hook, kernel), oldest
first, as JSON lines on stdout: one object a line with its sequence number,
time, run, task, decision, decider, principal, deciding layer and the indices
of the rules that matched. Needs a member credential.

  --since <time>   only decisions from this time on: an ISO date or time
                   (2026-11-30T12:00:00Z; without an offset, the local time)
                   or an age such as 24h, 30m
  --after <seq>    only decisions after this sequence number (resume an export)
  --run <run-id>   only this run's decisions
  --newest         newest first, back to --since or --after (an investigation
                   piped to head); an export to resume later stays oldest first

${CONNECTION_HELP}`;

const PAGE = 1000;

/**
 * An ISO 8601 date, or a date and time (a `T` or a space between them) with an optional
 * offset (`Z`, `+01:00`, `-0500`).
 */
const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Reads `--since`: an ISO date or time, or an age counted back from now. A date or time with no
 * offset is the local time (as `TZ` says, like journalctl's --since), a date its midnight; one
 * with an offset is that instant. Only ISO forms: Date.parse reads "foo 5" or "12/5" as a day of
 * 2001, which would export the whole trail instead of refusing a typo.
 * @throws UsageError (exit 2) on anything else, a day the calendar lacks (2026-02-30) included.
 */
export function parseSince(text: string, now: number = Date.now()): number {
  if (/^\d+(\.\d+)?(ms|s|m|h|d)$/.test(text)) {
    try {
      return now - parseDuration(text, '--since');
    } catch (error) {
      // 0s, or an age past what a duration holds: a command line it cannot use, exit 2.
      throw new UsageError((error as Error).message);
    }
  }
  const refused = (why: string) =>
    new UsageError(
      `--since wants an ISO time or an age such as 24h, not ${shownValue(text)}${why}`,
    );
  if (/^[+-]?\d+(\.\d+)?$/.test(text.trim())) {
    throw refused(' (a number needs its unit, a date its month and day)');
  }
  const parts = ISO_TIME.exec(text.trim());
  if (!parts) throw refused(' (such as 2026-11-30 or 2026-11-30T12:00:00Z)');
  const [year, month, day, hour = 0, minute = 0, second = 0] = parts
    .slice(1, 7)
    .map((part) => (part === undefined ? undefined : Number(part))) as number[];
  const millis = Number((parts[7] ?? '').padEnd(3, '0'));
  // Date.UTC rolls a day past the month's end into the next month: read it back to refuse it.
  const utc = Date.UTC(year!, month! - 1, day!, hour, minute, second, millis);
  const read = new Date(utc);
  if (
    read.getUTCFullYear() !== year ||
    read.getUTCMonth() !== month! - 1 ||
    read.getUTCDate() !== day ||
    read.getUTCHours() !== hour ||
    read.getUTCMinutes() !== minute ||
    read.getUTCSeconds() !== second
  ) {
    throw refused(' (no such day or time)');
  }
  const offset = parts[8];
  if (offset === undefined) {
    return new Date(year!, month! - 1, day!, hour, minute, second, millis).getTime();
  }
  if (offset.toUpperCase() === 'Z') return utc;
  const digits = offset.slice(1).replace(':', '');
  const [offsetHours, offsetMinutes] = [Number(digits.slice(0, 2)), Number(digits.slice(2))];
  if (offsetHours > 23 || offsetMinutes > 59) throw refused(' (no such offset)');
  const sign = offset.startsWith('-') ? -1 : 1;
  return utc - sign * (offsetHours * 60 + offsetMinutes) * 60_000;
}

/**
 * Refuses a page whose last record is not past where it was asked to start
 * (after `from.after` oldest first, before `from.before` newest first): the
 * export would ask for it, and write it, for ever.
 * @throws OperatorError (exit 1) naming the record and the start.
 */
function refuseStuckPage(
  lastSeq: number | undefined,
  from: { after: number; before?: number },
  order: 'oldest' | 'newest',
): void {
  if (lastSeq === undefined) return;
  const start = order === 'newest' ? from.before : from.after;
  if (start === undefined) return;
  if (order === 'newest' ? lastSeq < start : lastSeq > start) return;
  throw new OperatorError(
    `airlock audit export: the kernel answered record ${lastSeq} when asked for records ` +
      `${order === 'newest' ? 'before' : 'after'} ${start}, so reading on would never end; stopped there`,
    1,
  );
}

/**
 * A page read, or its failure told with what was written before it and the
 * command that resumes after it (a kernel restarting or unreachable mid-export).
 * @throws OperatorError with the failure as describeFailure says it, and the resume line.
 */
async function resumable<T>(
  read: () => Promise<T>,
  done: { written: number; through: number; again: (string | false)[] } | null,
): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (done === null) throw error;
    const { message, exitCode } = await describeFailure(error);
    const [first = '', ...rest] = message.split('\n');
    const again = done.again.filter((part) => typeof part === 'string').join(' ');
    throw new OperatorError(first, exitCode, [
      ...rest,
      `  wrote ${done.written} decisions, through sequence ${done.through}; resume with: ${again}`,
    ]);
  }
}

/** Runs `airlock audit ...`; returns the exit code. */
export async function audit(argv: string[]): Promise<number> {
  const { values, positionals } = parseOperatorArgs(argv, 'audit', {
    export: {
      flags: {
        since: { type: 'string' },
        after: { type: 'string' },
        run: { type: 'string' },
        newest: { type: 'boolean' },
      },
    },
  });
  const [verb] = positionals;
  if (values.help || !verb) {
    process.stdout.write(AUDIT_HELP);
    return values.help ? 0 : 2;
  }
  if (verb !== 'export') throw new UsageError(unknownVerbLine('audit', verb, ['export']));
  const connection = connectionFrom(values);
  const since = typeof values.since === 'string' ? parseSince(values.since) : null;
  const after =
    parseWholeNumber(values.after, {
      command: 'airlock audit export',
      flag: '--after',
      what: 'a sequence number (0 or more, in decimal digits)',
      min: 0,
      max: Number.MAX_SAFE_INTEGER,
    }) ?? 0;
  const workspace_id = connection.workspace;
  const run =
    parseIdFilter(values.run, {
      command: 'airlock audit export',
      flag: '--run',
      what: 'a run id',
    }) ?? null;
  // A count on the terminal while the lines go to a file or a pipe; never over the lines themselves.
  const startedAt = Date.now();
  const progress = progressLine(
    {
      isTTY: process.stderr.isTTY === true && process.stdout.isTTY !== true,
      write: (text) => process.stderr.write(text),
    },
    process.env,
    'airlock audit export',
  );
  const order = values.newest === true ? 'newest' : 'oldest';
  let written = 0;
  // Where the next page starts: after the last record read (oldest first) or before it (newest).
  let from: { after: number; before?: number } = { after };
  try {
    for (;;) {
      const page = { workspace_id, ...from, order, limit: PAGE } as const;
      const { records } = await resumable(
        () =>
          run === null
            ? connection.call('audit.export', {
                ...page,
                ...(since === null ? {} : { since }),
              })
            : connection.call('audit.run', { ...page, run_id: run }),
        // Oldest first, a later export starts after the last record read; newest first cannot.
        order === 'oldest' && from.after > after
          ? {
              written,
              through: from.after,
              again: [
                'airlock audit export',
                ...connection.repeatFlags,
                typeof values.since === 'string' && `--since ${shellQuoted(values.since)}`,
                run !== null && `--run ${shellQuoted(run)}`,
                `--after ${from.after}`,
              ],
            }
          : null,
      );
      refuseStuckPage(records.at(-1)?.seq, from, order);
      // A run's trail takes no time bound: --since is kept here, as the kernel keeps it for the
      // workspace's (at or after it). The page still moves on from its last record, kept or not.
      const kept =
        run === null || since === null ? records : records.filter((record) => record.at >= since);
      // One record a line; stringifying what the kernel's JSON lines parsed to gives back its
      // text, with what a terminal would act on escaped (the same value to a parser).
      const lines = kept.map((record) => `${terminalJson(record)}\n`).join('');
      // A slow reader (a pipe to gzip, a network copy) holds the next page: a long export
      // never piles up in memory.
      if (lines && !process.stdout.write(lines)) await once(process.stdout, 'drain');
      written += kept.length;
      progress.update(`${written} decisions written, ${elapsedSince(startedAt)}`, true);
      // A page stops at PAGE records or at the kernel's byte budget: a short page is not the
      // end of the trail, only an empty one is.
      const last = records.at(-1);
      if (last === undefined) return 0;
      from = order === 'newest' ? { after, before: last.seq } : { after: last.seq };
    }
  } finally {
    progress.done();
  }
}
