import { commandOf, HOOK_ENTRIES, type HookCommands } from './entries.js';
import { tomlKeyLines, tomlLineProblem } from './toml-lines.js';

/** The lines that open and close the block Airlock owns in Codex's config.toml. */
export const BLOCK_BEGIN =
  '# >>> airlock hooks (written by `airlock hooks install`; removed by `airlock hooks uninstall`)';
export const BLOCK_END = '# <<< airlock hooks';

/** How a begin line is found: its start, whatever a hand edit did to the rest. */
export const BEGIN_MARK = '# >>> airlock hooks';

/** A TOML basic string. */
function tomlString(value: string): string {
  return JSON.stringify(value);
}

/** The TOML of Airlock's command hooks for Codex (`[[hooks.EVENT]]` with `[[hooks.EVENT.hooks]]`). */
export function codexBlock(commands: HookCommands): string {
  const lines = [BLOCK_BEGIN];
  for (const entry of HOOK_ENTRIES.codex) {
    lines.push(
      `[[hooks.${entry.event}]]`,
      `[[hooks.${entry.event}.hooks]]`,
      'type = "command"',
      `command = ${tomlString(commandOf(entry, commands))}`,
      `timeout = ${entry.timeoutSeconds}`,
      '',
    );
  }
  lines.push(BLOCK_END);
  return lines.join('\n');
}

/** Where Airlock's block is: the indexes of its begin and end lines, or why it cannot be told. */
function blockLines(lines: readonly string[]): { begin: number; end: number } | null | string {
  const begins = lines.flatMap((line, index) => (line.startsWith(BEGIN_MARK) ? [index] : []));
  const ends = lines.flatMap((line, index) => (line.trimEnd() === BLOCK_END ? [index] : []));
  if (begins.length === 0 && ends.length === 0) return null;
  const [begin] = begins;
  const [end] = ends;
  const fix = "remove Airlock's lines by hand, then install again";
  if (begins.length > 1 || ends.length > 1) return `Airlock's block appears more than once; ${fix}`;
  if (begin === undefined) {
    return `Airlock's end line "${BLOCK_END}" is there without its begin line; ${fix}`;
  }
  if (end === undefined || end < begin) {
    return `Airlock's block begins on line ${begin + 1} but its end line "${BLOCK_END}" is missing, so where it ends cannot be told; ${fix}`;
  }
  return { begin, end };
}

/**
 * A key set after Airlock's block before any table header of its own (`model = "o3"` appended
 * to the file): TOML reads it as a field of Airlock's last hook, not as the top-level setting it
 * looks like, and taking the block out would move it under the table before the block (a key
 * set twice there: a file Codex cannot read). Why, or null when there is none.
 */
function keyAfterBlock(lines: readonly string[], end: number): string | null {
  const after = lines.slice(end + 1);
  const stray = tomlKeyLines(after).find(({ table }) => table === null);
  if (!stray) return null;
  const number = end + 2 + after.findIndex((line) => line.trim() === stray.line);
  const shown = stray.line.length > 60 ? `${stray.line.slice(0, 57)}...` : stray.line;
  return `line ${number} (${shown}) follows Airlock's block with no table header of its own, so TOML reads it as part of Airlock's last hook; move it above Airlock's block (line ${lines.findIndex((line) => line.startsWith(BEGIN_MARK)) + 1}), then run this again`;
}

/**
 * Why Airlock cannot add its block to (or take it out of) a config.toml, or
 * null. Read conservatively, line by line (no TOML parser): hooks declared
 * outside Airlock's block would clash with its `[[hooks.EVENT]]` tables, a
 * block without its end line cannot be told apart from what follows, a key
 * set after the block with no table of its own is read as part of it, and a
 * string or table header left open is not TOML (see `tomlLineProblem`).
 */
export function codexConfigProblem(text: string): string | null {
  const lines = text.split('\n');
  const block = blockLines(lines);
  if (typeof block === 'string') return block;
  const stray = block ? keyAfterBlock(lines, block.end) : null;
  if (stray) return stray;
  const outside = block ? [...lines.slice(0, block.begin), ...lines.slice(block.end + 1)] : lines;
  return tomlLineProblem(outside);
}

/**
 * Removes Airlock's block from a config.toml text; says whether there was one.
 * @throws Error when the block's lines are damaged, or a key follows it
 *   outside any table of its own (see {@link codexConfigProblem}).
 */
export function withoutCodexBlock(text: string): { text: string; removed: boolean } {
  const lines = text.split('\n');
  const block = blockLines(lines);
  if (typeof block === 'string') throw new Error(block);
  if (block === null) return { text, removed: false };
  const stray = keyAfterBlock(lines, block.end);
  if (stray) throw new Error(stray);
  const before = lines.slice(0, block.begin).join('\n').replace(/\n+$/, '');
  const after = lines
    .slice(block.end + 1)
    .join('\n')
    .replace(/^\n+/, '');
  const joined = [before, after].filter((part) => part.length > 0).join('\n\n');
  return { text: joined.length > 0 ? `${joined.replace(/\n+$/, '')}\n` : '', removed: true };
}

/**
 * Puts Airlock's block at the end of a config.toml text (after the tables
 * already there, as arrays of tables may be), replacing an earlier one.
 * @throws Error when the text declares hooks of its own or its block is damaged.
 */
export function withCodexBlock(text: string, commands: HookCommands): string {
  const problem = codexConfigProblem(text);
  if (problem) throw new Error(problem);
  const base = withoutCodexBlock(text).text.replace(/\n+$/, '');
  return `${base.length > 0 ? `${base}\n\n` : ''}${codexBlock(commands)}\n`;
}
