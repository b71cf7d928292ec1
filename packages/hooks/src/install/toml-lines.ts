import { tomlHeaderKey, tomlLineKey } from './toml-keys.js';

/** A multi-line string still open at the end of a line, or null. */
type OpenString = '"""' | "'''" | null;

/** Where a line leaves the reading: a multi-line string still open, and how deep in arrays and inline tables. */
interface LineState {
  open: OpenString;
  /** Brackets and braces open (outside strings and comments). */
  depth: number;
}

/**
 * Reads one line's strings, comment and brackets: where a multi-line string
 * is left open, how many arrays and inline tables are, and whether a
 * one-line string is not closed or a bracket closed that was never opened.
 * Escapes inside a multi-line basic string are not followed (a
 * conservative reading).
 */
function scanLine(
  line: string,
  before: LineState,
): LineState & { unclosed: boolean; unopened: boolean } {
  let i = 0;
  let { open: state, depth } = before;
  const result = (unclosed: boolean, unopened = false) => ({
    open: state,
    depth,
    unclosed,
    unopened,
  });
  while (i < line.length) {
    if (state !== null) {
      const close = line.indexOf(state, i);
      if (close < 0) return result(false);
      i = close + 3;
      state = null;
      continue;
    }
    const char = line[i];
    if (char === '#') break;
    if (line.startsWith('"""', i) || line.startsWith("'''", i)) {
      state = line.slice(i, i + 3) as OpenString;
      i += 3;
    } else if (char === '"') {
      let j = i + 1;
      while (j < line.length && line[j] !== '"') j += line[j] === '\\' ? 2 : 1;
      if (j >= line.length) return result(true);
      i = j + 1;
    } else if (char === "'") {
      const j = line.indexOf("'", i + 1);
      if (j < 0) return result(true);
      i = j + 1;
    } else {
      if (char === '[' || char === '{') depth += 1;
      if (char === ']' || char === '}') {
        depth -= 1;
        if (depth < 0) return result(false, true);
      }
      i += 1;
    }
  }
  return result(false);
}

/**
 * A table header or top-level key that declares Codex hooks: `[hooks…]`, `[[hooks…]]`, `hooks = …`,
 * `hooks.X = …`; beside the keys read as TOML reads them (`"hook\u0073"`), for a line they cannot read.
 */
const HOOKS_TABLE = /^\[\[?\s*(?:hooks|"hooks"|'hooks')\s*[.\]]/;
const HOOKS_KEY = /^(?:hooks|"hooks"|'hooks')\s*[.=]/;

const CLASH =
  "declares hooks outside Airlock's block, and its tables would clash with Airlock's; remove those hooks, or add Airlock's by hand";
const NOT_TOML = 'the file is not TOML, and Codex cannot read it; fix it first';

/**
 * The first line of a config.toml (Airlock's block left out) that declares
 * hooks, or that is plainly not TOML (a string, table header, array or
 * inline table left open); null when there is none. Line by line, outside
 * multi-line strings, comments, and arrays and inline tables that span
 * lines (a `[1, 2]` line inside an array is no table header): no TOML
 * parser, so it reads conservatively.
 */
export function tomlLineProblem(lines: readonly string[]): string | null {
  let topLevel = true;
  let state: LineState = { open: null, depth: 0 };
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    const where = `line ${index + 1} (${line.length > 60 ? `${line.slice(0, 57)}...` : line})`;
    if (state.open === null && state.depth === 0) {
      if (line.startsWith('[')) {
        topLevel = false;
        const header = tomlHeaderKey(line);
        if (header?.[0] === 'hooks' || HOOKS_TABLE.test(line)) return `${where} ${CLASH}`;
        if (!/\]\s*(?:#.*)?$/.test(line))
          return `${where} opens a table it does not close: ${NOT_TOML}`;
        // A name it cannot read may be hooks spelled another way.
        if (header === null) return `${where} names a table that cannot be read: ${NOT_TOML}`;
      } else if (topLevel && (tomlLineKey(line)?.key[0] === 'hooks' || HOOKS_KEY.test(line))) {
        return `${where} ${CLASH}`;
      }
    }
    const scanned = scanLine(line, state);
    if (scanned.unclosed) return `${where} has a string it does not close: ${NOT_TOML}`;
    if (scanned.unopened) return `${where} closes a bracket it did not open: ${NOT_TOML}`;
    state = { open: scanned.open, depth: scanned.depth };
  }
  if (state.open !== null)
    return `a multi-line string (${state.open}) is never closed: ${NOT_TOML}`;
  return state.depth === 0 ? null : `an array or inline table is never closed: ${NOT_TOML}`;
}

/** A key line of a config.toml outside arrays, inline tables and multi-line strings, with the table it sits in. */
export interface TomlKeyLine {
  /** The table's name as TOML reads it, its parts joined by dots (`features`); null at the top level. */
  table: string | null;
  /** The line, trimmed. */
  line: string;
  /** The key it sets as TOML reads it (`"hook\u0073"` is `hooks`) and its value's text; null when it cannot be read. */
  set: { key: string[]; value: string } | null;
}

/**
 * The key lines of a config.toml, each with its table: what a setting such as
 * `[features] hooks = false` is read from. Read as {@link tomlLineProblem}
 * reads (call that first: a text it refuses is read here as best it can be).
 */
export function tomlKeyLines(lines: readonly string[]): TomlKeyLine[] {
  const found: TomlKeyLine[] = [];
  let table: string | null = null;
  let state: LineState = { open: null, depth: 0 };
  for (const raw of lines) {
    const line = raw.trim();
    if (state.open === null && state.depth === 0 && line !== '' && !line.startsWith('#')) {
      if (line.startsWith('[')) {
        table =
          tomlHeaderKey(line)?.join('.') ?? line.replace(/#.*$/, '').replace(/[[\]\s"']/g, '');
      } else {
        found.push({ table, line, set: tomlLineKey(line) });
      }
    }
    const scanned = scanLine(line, state);
    if (scanned.unclosed || scanned.unopened) break;
    state = { open: scanned.open, depth: scanned.depth };
  }
  return found;
}
