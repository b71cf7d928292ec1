/**
 * The readings of a command line the classifier makes: as bash reads it,
 * and where shells read it apart (sh, a NUL byte, a double-quoted `${...}`
 * holding a single quote) each way, as one line of simple commands.
 */
import { PARAMETER_QUOTE_PROBLEM } from './expansion-reader.js';
import type { LexedLine, LexedSegment } from './lexed-line.js';
import { lexOnce, type Reading } from './shell-lexer.js';

/**
 * A text naming all a segment holds, equal for two segments exactly when
 * they hold the same: its words with their flags, redirections,
 * substitutions and inputs, each text prefixed with its length so no two
 * segments share a key. Cheaper than JSON.stringify, which walked each
 * object's keys and escaped every string.
 */
function segmentKey(segment: LexedSegment): string {
  let key = '';
  for (const word of segment.words) {
    const flags = `${+word.dynamic}${+!!word.subscript}${+!!word.splits}${+!!word.arithmetic}`;
    key += `w${flags}${word.text.length}:${word.text}`;
  }
  for (const { operator, target, fd } of segment.redirections) {
    key += `r${fd ?? ''}${operator} ${target.length}:${target}`;
  }
  for (const source of segment.substitutions) key += `s${source.length}:${source}`;
  for (const input of segment.inputs) key += `i${+input.dynamic}${input.text.length}:${input.text}`;
  return key;
}

/**
 * Two readings of one line as one: the second's commands that the first
 * holds already are left out, so a command or `$(...)` is walked once.
 */
function bothReadings(first: LexedLine, second: LexedLine): LexedLine {
  const known = new Set(first.segments.map(segmentKey));
  const substitutions = new Set(first.segments.flatMap((segment) => segment.substitutions));
  const added = second.segments
    .filter((segment) => !known.has(segmentKey(segment)))
    .map((segment) => ({
      ...segment,
      substitutions: segment.substitutions.filter((source) => !substitutions.has(source)),
    }));
  return {
    segments: [...first.segments, ...added],
    problems: [...first.problems, ...second.problems],
  };
}

/** Which shell runs a line: bash, or a POSIX sh such as dash that may be bash too. */
export type LineShell = 'bash' | 'sh';

/**
 * A line read as bash reads it and, where sh ends a `${...}` elsewhere, as
 * sh reads it too; a line sh runs is also read as POSIX sh reads bash's own
 * syntax (`sh -c '[[ x || rm -rf y ]]'` runs rm in dash).
 */
function lexAsShells(source: string, shell: LineShell): LexedLine {
  const bash = lexOnce(source);
  if (shell === 'sh') return bothReadings(bash, lexOnce(source, POSIX_SH));
  if (!bash.problems.includes(PARAMETER_QUOTE_PROBLEM)) return bash;
  return bothReadings(bash, lexOnce(source, { posixParameters: true }));
}

const POSIX_SH: Reading = { posixParameters: true, posixShell: true };

/** Why a line holding a NUL is unknown: which reading runs depends on how it reaches the shell. */
const NUL_PROBLEM = 'a NUL byte, which bash drops from its input and an argument ends at';

/**
 * Reads a shell command line into simple commands for classification. Never
 * throws: what it cannot read is listed in `problems`, and the caller treats
 * the line as unknown. A line holding a NUL is read twice, with its NULs
 * removed (bash and sh drop them from the input they read, so `r\0m` fed
 * to them runs `rm`) and cut at the first (where it is passed as an
 * argument), and is unknown.
 */
export function lexShellLine(source: string, shell: LineShell = 'bash'): LexedLine {
  const nul = source.indexOf('\0');
  if (nul < 0) return lexAsShells(source, shell);
  const dropped = lexAsShells(source.replaceAll('\0', ''), shell);
  const line = bothReadings(dropped, lexAsShells(source.slice(0, nul), shell));
  return { segments: line.segments, problems: [NUL_PROBLEM, ...line.problems] };
}
