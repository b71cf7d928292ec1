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
