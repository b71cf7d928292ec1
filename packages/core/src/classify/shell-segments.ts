import { lexShellLine } from './shell-lexer.js';
import { redirectsNowhere } from './streams.js';

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

/** The files a command line's top-level redirections write to (`> file`, `>> file`). */
export function redirectionTargets(command: string): string[] {
  const targets: string[] = [];
  for (const segment of lexShellLine(command).segments) {
    for (const { operator, target } of segment.redirections) {
      if (operator.includes('>') && !redirectsNowhere(target)) targets.push(target);
    }
  }
  return targets;
}
