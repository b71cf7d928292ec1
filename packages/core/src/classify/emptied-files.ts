import { namesLongOption, optionValues } from './flags.js';
import type { LexedSegment, ShellWord } from './lexed-line.js';
import { redirectsNowhere } from './streams.js';
import type { ActionTag } from './tags.js';

/** Redirections that empty their file before the command runs (`>>` only appends). */
const TRUNCATING = new Set(['>', '>|', '&>', '>&']);

/** Whether a segment redirects with `>` (not `>>`) to a file, emptying it before the command runs. */
function truncatesFile(segment: LexedSegment): boolean {
  if (segment.redirections.length === 0) return false;
  return segment.redirections.some(
    ({ operator, target }) => TRUNCATING.has(operator) && !redirectsNowhere(target),
  );
}

/** Whether the segment's standard input is empty (`< /dev/null`, and no here-document). */
function readsNothing(segment: LexedSegment): boolean {
  if (segment.inputs.length > 0) return false;
  return segment.redirections.some(
    ({ operator, target }) => operator === '<' && target === '/dev/null',
  );
}

/** `echo -n` with nothing or one empty operand (`echo -n ''`); options end at the first operand. */
function echoesNothing(args: readonly string[]): boolean {
  let at = 0;
  let newline = true;
  for (; at < args.length && /^-[neE]+$/.test(args[at]!); at++) {
    if (args[at]!.includes('n')) newline = false;
  }
  const operands = args.slice(at);
  return !newline && (operands.length === 0 || (operands.length === 1 && operands[0] === ''));
}

/** sort's short options that take a value apart (`-k 2`, `-o out`). */
const SORT_VALUED = new Set(['-k', '-t', '-o', '-S', '-T']);

/**
 * `tee FILE < /dev/null` and `sponge FILE < /dev/null` (no `-a`), `sort -o FILE /dev/null` (or `< /dev/null`): the file it
 * writes is emptied before it is written, and nothing is written to it.
 */
function writesNothingTo(segment: LexedSegment, program: string, args: readonly string[]): boolean {
  const operands = args.filter(
    (arg, index) => !arg.startsWith('-') && !SORT_VALUED.has(args[index - 1] ?? ''),
  );
  if (program === 'tee' || program === 'sponge') {
    const appends = args.some(
      (arg) => /^-[a-zA-Z]*a/.test(arg) || namesLongOption(arg, '--append'),
    );
    return !appends && operands.length > 0 && readsNothing(segment);
  }
  if (program !== 'sort') return false;
  const outputs = optionValues(args, ['-o', '--output']);
  if (outputs.length === 0 || outputs.every((file) => redirectsNowhere(file))) return false;
  return operands.length === 0
    ? readsNothing(segment)
    : operands.every((arg) => arg === '/dev/null');
}

/**
 * `> f`, `: > f`, `cat /dev/null > f`, `cat < /dev/null > f`, `echo -n '' > f`,
 * `printf -- '' > f`: a command (or none) that prints nothing, redirected
 * with `>`, empties the file: its content is deleted; so do `tee f < /dev/null` and `sort -o f
 * /dev/null`.
 */
export function emptiesFile(
  segment: LexedSegment,
  program: string | null,
  args: readonly string[],
): boolean {
  if (program !== null && writesNothingTo(segment, program, args)) return true;
  if (program !== null && readsWhatItTruncates(segment, program, args)) return true;
  return truncatesFile(segment) && printsNothing(segment, program, args);
}

/** Filters whose output comes of their input files alone: an empty input prints nothing. */
const FILTERS = new Set([
  'cat',
  'tac',
  'sort',
  'uniq',
  'grep',
  'egrep',
  'fgrep',
  'head',
  'tail',
  'sed',
  'awk',
  'cut',
  'rev',
  'fold',
  'fmt',
  'expand',
  'unexpand',
  'nl',
  'paste',
  'column',
  'jq',
]);

/** The path a word names with its `./` prefixes dropped (`./f` and `f` are one file). */
const plainPath = (path: string) => path.replace(/^(\.\/+)+/, '');

/**
 * `sort f > f`, `cat f > f`, `grep x f > f`: the shell empties f before the filter reads it, so
 * it reads nothing and prints nothing; f is left empty (`sed -i` and `sort -o f f` write in place).
 */
function readsWhatItTruncates(
  segment: LexedSegment,
  program: string,
  args: readonly string[],
): boolean {
  if (!FILTERS.has(program) || (program === 'sed' && args.some((arg) => /^-[a-zA-Z]*i/.test(arg))))
    return false;
  const operands = new Set(args.filter((arg) => !arg.startsWith('-')).map(plainPath));
  return segment.redirections.some(
    ({ operator, target, fd }) =>
      TRUNCATING.has(operator) && (fd ?? '1') === '1' && operands.has(plainPath(target)),
  );
}

/** Whether a command (`null`: none, only redirections) prints nothing on its standard output. */
function printsNothing(
  segment: LexedSegment,
  program: string | null,
  args: readonly string[],
): boolean {
  if (program === null || program === ':' || program === 'true' || program === 'false') return true;
  if (program === 'cat') {
    const inputs = args.length === 0 ? ['-'] : args;
    return inputs.every((arg) => arg === '/dev/null' || (arg === '-' && readsNothing(segment)));
  }
  if (program === 'echo') return echoesNothing(args);
  if (program === 'printf') {
    // An empty format prints nothing, whatever arguments follow it.
    const format = args[0] === '--' ? args[1] : args[0];
    return format === '';
  }
  return false;
}

/** Wrappers that print nothing of their own: `sudo :`, `env A=1 true`, `timeout 5 :`. */
const QUIET_WRAPPERS = new Set([
  'sudo',
  'env',
  'nice',
  'nohup',
  'time',
  'command',
  'builtin',
  'exec',
]);

/** A command's words past its plain wrappers and assignments (`timeout` takes its duration). */
export function withoutWrappers(words: readonly ShellWord[]): readonly ShellWord[] {
  let at = 0;
  // A wrapper alone prints (`env`, `nice`): the last word is never skipped.
  while (at < words.length - 1) {
    const text = words[at]!.text;
    if (QUIET_WRAPPERS.has(text) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(text)) at++;
    else if (
      text === 'timeout' &&
      at + 2 < words.length &&
      /^[0-9.]+[smhd]?$/.test(words[at + 1]!.text)
    )
      at += 2;
    else break;
  }
  return words.slice(at);
}

/**
 * The next command of a pipe as it runs after `segment`: when `segment` prints nothing (`: |`,
 * `true |`, `printf '' |`), the next one reads an empty input, as after `< /dev/null`, unless it
 * redirects its input itself.
 */
export function afterPipe(segment: LexedSegment, next: LexedSegment): LexedSegment {
  if (segment.pipesOut !== true || next.inputs.length > 0) return next;
  if (next.redirections.some(({ operator, fd }) => operator.startsWith('<') && (fd ?? '0') === '0'))
    return next;
  const empty = { ...next, redirections: [...next.redirections, EMPTY_INPUT] };
  // `sudo > f | next`: what the command prints goes to f (unless a descriptor is copied).
  const { redirections } = segment;
  if (
    redirections.some(({ operator, fd }) => STDOUT_AWAY.has(operator) && (fd ?? '1') === '1') &&
    !redirections.some(({ operator }) => operator === '>&' || operator === '<&')
  )
    return empty;
  const [first, ...rest] = withoutWrappers(segment.words);
  if (first?.dynamic || rest.some((word) => word.dynamic)) return next;
  const program = first === undefined ? null : first.text;
  if (
    !printsNothing(
      segment,
      program,
      rest.map((word) => word.text),
    )
  )
    return next;
  return empty;
}

/** Redirections sending a command's standard output to a file. */
const STDOUT_AWAY = new Set(['>', '>>', '>|', '&>', '&>>']);
const EMPTY_INPUT = { operator: '<', target: '/dev/null' } as const;

/** The tags of a file whose content is gone. */
export function addEmptied(tags: Set<ActionTag>): void {
  tags.add('delete');
  tags.add('destructive');
}
