import { forTerminal } from '@airlock/core/command-line';

/**
 * A line of an operator command's text output: free text, or a table row
 * given as its cells (printed tab-separated, so `cut -f` and `awk -F'\t'` read it).
 */
export type OutputLine = string | readonly string[];

/**
 * Text from the kernel as a terminal shows it: every control character
 * escaped ({@link forTerminal}), the tab too (written `\t`), so that a label
 * or a tool name holding one can neither act on the terminal nor fake a
 * column of a table.
 */
export function terminalText(text: string): string {
  return forTerminal(text).replaceAll('\t', '\\t');
}

/** A line as printed: free text escaped, a row's cells each escaped and joined by tabs. */
export function terminalLine(line: OutputLine): string {
  return typeof line === 'string' ? terminalText(line) : line.map(terminalText).join('\t');
}

/**
 * What JSON.stringify leaves raw that a terminal acts on: DEL, the C1 controls (U+009B is a
 * CSI of its own) and the bidirectional marks and overrides that reorder what follows them.
 */
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * A value as JSON (`indent` spaces, or one line without), the characters a terminal would act
 * on written as `\u` escapes: a person reads `--json` on a terminal too, and a parser reads
 * the same value back. JSON.stringify escapes the C0 controls itself; these can only stand
 * inside a string, where an escape is the same character.
 */
export function terminalJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(
    RAW_IN_JSON,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
