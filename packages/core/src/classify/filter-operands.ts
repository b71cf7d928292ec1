import { programName } from './program-paths.js';

/*
 * Programs whose first operand is a program in their own language, not a path: `jq .`,
 * `jq '.[] | .name' data.json`. Read as a path, the filter `.` would name the working
 * directory and every path under it.
 */

const FILTER_PROGRAMS = new Set(['jq', 'gojq', 'jaq', 'yq']);
/** Options taking two values (`--arg name value`), then one value. */
const TWO_VALUES = new Set(['--arg', '--argjson', '--slurpfile', '--rawfile']);
const ONE_VALUE = new Set(['--indent', '-L', '--tab-width']);
/** `-f`, `--from-file` and a short cluster holding `f` (`-rf`, `-nrf`): the filter is a file. */
const FROM_FILE = /^(-[A-Za-z]*f[A-Za-z]*|--from-file(=.*)?)$/s;

/**
 * The index in `words` (which start with the program) of the filter a jq-like program is
 * given, or -1: none when a file gives it (`-f`, `-rf`, `--from-file`) or the program is another.
 */
export function filterOperand(words: readonly string[]): number {
  const first = words[0];
  if (first === undefined || !FILTER_PROGRAMS.has(programName(first))) return -1;
  for (let index = 1; index < words.length; index++) {
    const word = words[index]!;
    if (FROM_FILE.test(word) || word === '--') return -1;
    if (TWO_VALUES.has(word)) index += 2;
    else if (ONE_VALUE.has(word)) index += 1;
    else if (!word.startsWith('-')) return index;
  }
  return -1;
}
