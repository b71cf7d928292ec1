/**
 * Approve with changes, the pure part: reading the JSON a person typed as a
 * call's new input, and the line diff of that input against the original.
 * No DOM, so it is unit-tested in Node.
 */
import { hasHiddenCharacters, visibleText } from '@airlock/sdk';
import { type DiffLine, diffLinesOf } from './diff-source.js';
import { sameJson } from './input-changes.js';

/** What the person typed, read: the new input, or why it is not JSON. */
export type EditedInput =
  | { ok: true; value: unknown; changed: boolean }
  | { ok: false; message: string };

/** A character as JSON escapes (`\u202e`; a character past U+FFFF as its two halves). */
function jsonEscapes(character: string): string {
  return [...Array(character.length).keys()]
    .map((i) => `\\u${character.charCodeAt(i).toString(16).padStart(4, '0')}`)
    .join('');
}

/**
 * The text an input is edited as: JSON, indented by two spaces. A character that changes how
 * text reads without showing (a bidirectional override, a zero-width space) is written as its
 * JSON escape (`\u202e`): read back, it is the same input, and the text area shows the call as it
 * runs, not reordered or with parts hidden.
 */
export function editableText(input: unknown): string {
  const text = JSON.stringify(input ?? null, null, 2);
  if (!hasHiddenCharacters(text)) return text;
  // Outside JSON's strings there is only ASCII: every such character stands in a string.
  return text.replace(/[^\x20-\x7e\n]/gu, (character) =>
    hasHiddenCharacters(character) ? jsonEscapes(character) : character,
  );
}

/** Where `position` (a character offset) falls in `text`, counted from 1. */
function lineAndColumn(text: string, position: number): { line: number; column: number } {
  const before = text.slice(0, position).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

/** A JSON number token, from where a scan stands on its first character. */
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** Where a scan of JSON text stands just after a string: a `:` next makes it a key. */
const KEY_COLON = /\s*:/y;

/**
 * The first thing of a valid JSON text that would not be sent as typed, with
 * its offset: a key given twice in one object (only its last value is read),
 * an integer past 2^53, which the page reads (and sends) as other digits, or
 * a number past the largest double, read as Infinity and sent as null. The
 * kernel refuses each from any client (`duplicate_key`, `inexact_number`);
 * here the page would change the input before the kernel ever saw it.
 */
function notAsTyped(text: string): { at: number; words: string } | null {
  // The keys of each object the scan is in; null for an array.
  const frames: (Set<string> | null)[] = [];
  for (let at = 0; at < text.length; ) {
    const character = text[at] ?? '';
    if (character === '{' || character === '[') {
      frames.push(character === '{' ? new Set() : null);
      at += 1;
      continue;
    }
    if (character === '}' || character === ']') {
      frames.pop();
      at += 1;
      continue;
    }
    if (character === '"') {
      // Past the string: an escaped quote does not end it.
      let end = at + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const keys = frames.at(-1);
      KEY_COLON.lastIndex = end + 1;
      if (keys && KEY_COLON.test(text)) {
        const key = JSON.parse(text.slice(at, end + 1)) as string;
        if (keys.has(key)) {
          const named = visibleText(JSON.stringify(key), { oneLine: true });
          return {
            at,
            words: `the key ${named} is given twice; only its last value would be sent`,
          };
        }
        keys.add(key);
      }
      at = end + 1;
      continue;
    }
    NUMBER.lastIndex = at;
    const token = /[-\d]/.test(character) ? NUMBER.exec(text)?.[0] : undefined;
    if (token === undefined) {
      at += 1;
      continue;
    }
    const value = Number(token);
    if (!Number.isFinite(value)) {
      return { at, words: `${token} is past the largest number JSON carries (sent as null)` };
    }
    // An integer is sent as typed when the page writes it back alike (the digits a kernel's
    // own answer carries) or the double holds it exactly.
    const integer = !/[.eE]/.test(token);
    if (integer && String(value) !== token && BigInt(token) !== BigInt(value)) {
      return {
        at,
        words: `${token} is an integer past 2^53 that would be sent as ${JSON.stringify(value)}; write it as a string`,
      };
    }
    at += token.length;
  }
  return null;
}

/**
 * Reads the text a person typed as a call's input. Invalid JSON is refused
 * with where it goes wrong (line and column) and the parser's words, and so
 * is a key given twice or a number that would be sent as other digits than
 * typed; `changed` says
 * whether the value differs from `original`.
 */
export function readEditedInput(text: string, original: unknown): EditedInput {
  if (text.trim() === '') {
    return { ok: false, message: 'The input is empty: type it as JSON, for example {}.' };
  }
  try {
    const value = JSON.parse(text) as unknown;
    const inexact = notAsTyped(text);
    if (inexact) {
      const where = lineAndColumn(text, inexact.at);
      return {
        ok: false,
        message: `Not sent as typed (line ${where.line}, column ${where.column}): ${inexact.words}`,
      };
    }
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
