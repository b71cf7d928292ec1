/** A multi-line string still open at the end of a line, or null. */
type OpenString = '"""' | "'''" | null;

/**
 * Reads one line's strings and comment: where a multi-line string is left
 * open, and whether a one-line string is not closed. Escapes inside a
 * multi-line basic string are not followed (a conservative reading).
 */
function scanLine(line: string, open: OpenString): { open: OpenString; unclosed: boolean } {
  let i = 0;
  let state = open;
  while (i < line.length) {
    if (state !== null) {
      const close = line.indexOf(state, i);
      if (close < 0) return { open: state, unclosed: false };
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
      if (j >= line.length) return { open: null, unclosed: true };
      i = j + 1;
    } else if (char === "'") {
      const j = line.indexOf("'", i + 1);
      if (j < 0) return { open: null, unclosed: true };
      i = j + 1;
    } else {
      i += 1;
    }
  }
  return { open: state, unclosed: false };
}

/** A table header or top-level key that declares Codex hooks: `[hooks…]`, `[[hooks…]]`, `hooks = …`, `hooks.X = …`. */
const HOOKS_TABLE = /^\[\[?\s*(?:hooks|"hooks"|'hooks')\s*[.\]]/;
const HOOKS_KEY = /^(?:hooks|"hooks"|'hooks')\s*[.=]/;

const CLASH =
  "declares hooks outside Airlock's block, and its tables would clash with Airlock's; remove those hooks, or add Airlock's by hand";
const NOT_TOML = 'the file is not TOML, and Codex cannot read it; fix it first';

/**
 * The first line of a config.toml (Airlock's block left out) that declares
 * hooks, or that is plainly not TOML (a string or a table header left open);
 * null when there is none. Line by line, outside multi-line strings and
 * comments: no TOML parser, so it reads conservatively.
 */
export function tomlLineProblem(lines: readonly string[]): string | null {
  let topLevel = true;
  let open: OpenString = null;
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    const where = `line ${index + 1} (${line.length > 60 ? `${line.slice(0, 57)}...` : line})`;
    if (open === null) {
      if (line.startsWith('[')) {
        topLevel = false;
        if (HOOKS_TABLE.test(line)) return `${where} ${CLASH}`;
        if (!/\]\s*(?:#.*)?$/.test(line))
          return `${where} opens a table it does not close: ${NOT_TOML}`;
      } else if (topLevel && HOOKS_KEY.test(line)) {
        return `${where} ${CLASH}`;
      }
    }
    const scanned = scanLine(line, open);
    if (scanned.unclosed) return `${where} has a string it does not close: ${NOT_TOML}`;
    open = scanned.open;
  }
  return open === null ? null : `a multi-line string (${open}) is never closed: ${NOT_TOML}`;
}
