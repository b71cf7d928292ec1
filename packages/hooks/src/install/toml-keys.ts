/*
 * TOML keys read as TOML reads them: `hooks`, `"hooks"`, `'hooks'` and `"hook\u0073"` are one
 * key, and `hooks . PreToolUse` is a dotted key whose first part is `hooks`. A check that
 * compared spellings let a config.toml declare hooks that Airlock's block then clashed with.
 */

/** The escapes of a TOML basic string besides `\u`, `\U` and `\x`: what each one stands for. */
const SIMPLE_ESCAPES: Record<string, string> = {
  b: '\b',
  t: '\t',
  n: '\n',
  f: '\f',
  r: '\r',
  e: '\u001b',
  '"': '"',
  '\\': '\\',
};

/** Hex digits each of `\x`, `\u` and `\U` takes (TOML 1.1 adds `\x`; read too, to be safe). */
const HEX_ESCAPES: Record<string, number> = { x: 2, u: 4, U: 8 };

const BARE_KEY = /^[A-Za-z0-9_-]+/;

/** A basic string's text from its opening quote at `start`: its value and the index past it, or null. */
function basicString(line: string, start: number): { value: string; end: number } | null {
  let value = '';
  let i = start + 1;
  while (i < line.length) {
    const char = line[i] as string;
    if (char === '"') return { value, end: i + 1 };
    if (char !== '\\') {
      value += char;
      i += 1;
      continue;
    }
    const kind = line[i + 1] ?? '';
    const simple = SIMPLE_ESCAPES[kind];
    const digits = HEX_ESCAPES[kind];
    if (simple !== undefined) {
      value += simple;
      i += 2;
    } else if (digits !== undefined) {
      const hex = line.slice(i + 2, i + 2 + digits);
      if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== digits) return null;
      const point = Number.parseInt(hex, 16);
      if (point > 0x10ffff || (point >= 0xd800 && point <= 0xdfff)) return null;
      value += String.fromCodePoint(point);
      i += 2 + digits;
    } else return null;
  }
  return null;
}

/**
 * The dotted key that starts at `start` of a line (spaces before it
 * skipped): its parts as TOML reads them (quotes dropped, escapes
 * decoded) and the index past it, or null when no key is there or it is
 * not TOML (an unknown escape, an unclosed quote, an empty part).
 */
export function tomlKeyAt(line: string, start: number): { key: string[]; end: number } | null {
  const key: string[] = [];
  let i = start;
  for (;;) {
    while (line[i] === ' ' || line[i] === '\t') i += 1;
    const char = line[i];
    if (char === '"') {
      const read = basicString(line, i);
      if (read === null) return null;
      key.push(read.value);
      i = read.end;
    } else if (char === "'") {
      const close = line.indexOf("'", i + 1);
      if (close < 0) return null;
      key.push(line.slice(i + 1, close));
      i = close + 1;
    } else {
      const bare = BARE_KEY.exec(line.slice(i));
      if (!bare) return null;
      key.push(bare[0]);
      i += bare[0].length;
    }
    let after = i;
    while (line[after] === ' ' || line[after] === '\t') after += 1;
    if (line[after] !== '.') return { key, end: i };
    i = after + 1;
  }
}

/**
 * The key a table header names (`[a.b]` or `[[a.b]]`), or null when the
 * line is no header TOML reads.
 */
export function tomlHeaderKey(line: string): string[] | null {
  const open = line.startsWith('[[') ? 2 : line.startsWith('[') ? 1 : 0;
  if (open === 0) return null;
  const read = tomlKeyAt(line, open);
  if (read === null) return null;
  const rest = line.slice(read.end).trimStart();
  return rest.startsWith(']'.repeat(open)) ? read.key : null;
}

/** The key a `key = value` line sets and the value's text, or null when the line sets none TOML reads. */
export function tomlLineKey(line: string): { key: string[]; value: string } | null {
  const read = tomlKeyAt(line, 0);
  if (read === null) return null;
  const rest = line.slice(read.end).trimStart();
  return rest.startsWith('=') ? { key: read.key, value: rest.slice(1).trim() } : null;
}
