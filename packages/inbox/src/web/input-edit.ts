/**
 * Approve with changes, the pure part: reading the JSON a person typed as a
 * call's new input, and the line diff of that input against the original.
 * No DOM, so it is unit-tested in Node.
 */
import { type DiffLine, diffLinesOf } from './diff-source.js';
import { sameJson } from './input-changes.js';

/** What the person typed, read: the new input, or why it is not JSON. */
export type EditedInput =
  | { ok: true; value: unknown; changed: boolean }
  | { ok: false; message: string };

/** The text an input is edited as: JSON, indented by two spaces. */
export function editableText(input: unknown): string {
  return JSON.stringify(input ?? null, null, 2);
}

/** Where `position` (a character offset) falls in `text`, counted from 1. */
function lineAndColumn(text: string, position: number): { line: number; column: number } {
  const before = text.slice(0, position).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

/**
 * Reads the text a person typed as a call's input. Invalid JSON is refused
 * with where it goes wrong (line and column) and the parser's words; `changed`
 * says whether the value differs from `original`.
 */
export function readEditedInput(text: string, original: unknown): EditedInput {
  if (text.trim() === '') {
    return { ok: false, message: 'The input is empty: type it as JSON, for example {}.' };
  }
  try {
    const value = JSON.parse(text) as unknown;
    return { ok: true, value, changed: !sameJson(value, original ?? null) };
  } catch (error) {
    const said = (error as Error).message;
    const at = /position (\d+)/.exec(said);
    const lineColumn = /line (\d+) column (\d+)/.exec(said);
    const where = at?.[1]
      ? lineAndColumn(text, Number(at[1]))
      : lineColumn
        ? { line: Number(lineColumn[1]), column: Number(lineColumn[2]) }
        : null;
    // The parser's own words, without the position: it is given as line and column.
    const words = said.replace(/\s*(in JSON )?at position \d+( \(line \d+ column \d+\))?/, '');
    return {
      ok: false,
      message: `Not valid JSON${where ? ` (line ${where.line}, column ${where.column})` : ''}: ${words}`,
    };
  }
}

/** The edited input against the original, line by line, both as indented JSON. */
export function inputDiffLines(original: unknown, edited: unknown): DiffLine[] {
  return diffLinesOf({
    path: 'input',
    before: editableText(original),
    after: editableText(edited),
  });
}
