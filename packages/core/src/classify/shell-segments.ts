import { lexShellLine } from './shell-readings.js';

/** One simple command of a shell line: its words, quotes removed. */
export type ShellSegment = readonly string[];

/**
 * Splits a shell command line into its top-level simple commands at unquoted
 * `&&`, `||`, `;`, `|`, `&`, newlines and parentheses, each as its words with
 * quotes and redirections removed. Commands inside `$(...)` are not listed
 * here; {@link classifyShellSegments} follows them.
 */
export function splitShellSegments(command: string): ShellSegment[] {
  return lexShellLine(command)
    .segments.map((segment) => segment.words.map((word) => word.text))
    .filter((words) => words.length > 0);
}
