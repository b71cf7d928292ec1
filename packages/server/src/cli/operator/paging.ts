import { plainWholeNumber } from '../whole-number.js';
import { OperatorError, UsageError } from './connection.js';
import { parseIdFilter } from './filter-values.js';

/** The most rows one page of a list holds (the API's bound). */
export const MAX_PAGE = 1000;

/**
 * Reads a flag that holds a whole number written in plain decimal digits, from
 * `min` to `max`; undefined when absent. `1e3`, `0x10`, `''` and ` 5` are refused.
 * @throws UsageError (exit 2) naming the command and the flag on anything else.
 */
export function parseWholeNumber(
  value: string | boolean | undefined,
  options: { command: string; flag: string; what: string; min: number; max: number },
): number | undefined {
  if (value === undefined) return undefined;
  const number =
    typeof value === 'string' ? plainWholeNumber(value, options.min, options.max) : null;
  if (number === null) {
    throw new UsageError(
      `${options.command}: ${options.flag} wants ${options.what}, not "${String(value)}"`,
    );
  }
  return number;
}

/**
 * Reads `--limit`: a whole number of rows from 1 to {@link MAX_PAGE}; undefined when absent.
 * @throws UsageError (exit 2) naming the command on anything else.
 */
export function parseLimit(
  value: string | boolean | undefined,
  command: string,
): number | undefined {
  return parseWholeNumber(value, {
    command,
    flag: '--limit',
    what: `a number of rows from 1 to ${MAX_PAGE}`,
    min: 1,
    max: MAX_PAGE,
  });
}

/**
 * Reads a list's paging flags: `--limit`, `--cursor` and `--all`.
 * @throws UsageError (exit 2) naming the command on a bad `--limit`, an empty
 *   `--cursor` (`--cursor "$NEXT"` after the last page would read the first
 *   page again) and `--cursor` with `--all`.
 */
export function parsePaging(
  values: Readonly<Record<string, string | boolean | undefined>>,
  command: string,
): { limit: number | undefined; cursor: string | undefined; all: boolean } {
  const limit = parseLimit(values.limit, command);
  const cursor = parseIdFilter(values.cursor, {
    command,
    flag: '--cursor',
    what: 'the next_cursor a page printed',
  });
  const all = values.all === true;
  if (cursor !== undefined && all)
    throw new UsageError(`${command}: give --cursor or --all, not both`);
  return { limit, cursor, all };
}

/**
 * The line a list prints under a page that more rows follow: how many it
 * shows (of how many in all, when the kernel counts them) and the command
 * that reads the next page, with the filters given; none after the last page.
 */
export function nextPageLines(page: {
  /** The list command with its filters (`airlock runs list --state running --limit 2`). */
  again: readonly (string | number | false | undefined)[];
  /** What the rows are (`runs`): said when no count of them all says more follow. */
  what: string;
  shown: number;
  total?: number;
  nextCursor: string | null;
}): string[] {
  if (!page.nextCursor) return [];
  const count =
    page.total === undefined
      ? `showing ${page.shown}; more ${page.what} exist,`
      : `showing ${page.shown} of ${page.total};`;
  const command = page.again.filter((part) => typeof part === 'string' && part !== '').join(' ');
  return [`${count} next page: ${command} --cursor ${page.nextCursor} (or --all)`];
}

/** One page of a cursor-paged list as the kernel answers it. */
interface CursorPage {
  next_cursor: string | null;
}

/**
 * Reads one page of a list from `cursor`, or with `all` every page from the
 * first, their rows gathered into the first page's (`rowsOf`) and
 * `next_cursor` null.
 * @throws OperatorError (exit 1) when, with `all`, the kernel answers a cursor
 *   it answered before: reading on would go round for ever. Whatever `readPage` throws.
 */
export async function readPages<Page extends CursorPage, Row>(
  readPage: (cursor: string | undefined) => Promise<Page>,
  options: {
    command: string;
    cursor: string | undefined;
    all: boolean;
    rowsOf: (page: Page) => Row[];
  },
): Promise<Page> {
  const first = await readPage(options.cursor);
  // The kernel hands a cursor only when a row follows the page.
  if (!options.all) return first;
  const rows = options.rowsOf(first);
  const seen = new Set<string>();
  let pages = 1;
  for (let cursor = first.next_cursor; cursor; ) {
    seen.add(cursor);
    const next = await readPage(cursor);
    pages += 1;
    rows.push(...options.rowsOf(next));
    cursor = next.next_cursor;
    if (cursor && seen.has(cursor)) {
      throw new OperatorError(
        `${options.command} --all: the kernel answered the same cursor twice ("${cursor}"), ` +
          `so reading on would never end; stopped after ${pages} pages (${rows.length} rows)`,
        1,
      );
    }
  }
  first.next_cursor = null;
  return first;
}
