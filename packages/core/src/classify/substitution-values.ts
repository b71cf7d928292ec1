import { lexOnce } from './shell-lexer.js';

/*
 * The value of a command substitution that prints literal words: `c=$(echo rm); $c x`,
 * c=`printf rm` and `$(which rm) x` run rm. Only echo and printf given words without
 * expansions, and lookups of a program's path, are read.
 */

/** Longer substitutions print no program's name: they are not read. */
const MAX_SOURCE = 256;
/** `$(...)` or backticks making the whole value. */
const WHOLE = /^(?:\$\(([^()]*)\)|`([^`\\]*)`)$/s;

/** What echo prints of its words (its leading -n, -e and -E dropped); null past an escape. */
function echoed(args: readonly string[]): string | null {
  let at = 0;
  while (at < args.length && /^-[neE]+$/.test(args[at]!)) at++;
  const text = args.slice(at).join(' ');
  return text.includes('\\') ? null : text;
}

/** What printf prints of a format of no `%` or `\`, or of `%s` and its arguments. */
function printed(args: readonly string[]): string | null {
  const [format, ...rest] = args;
  if (format === undefined) return null;
  if (!/[%\\]/.test(format)) return format;
  if (format === '%s' && rest.every((word) => !word.includes('\\'))) return rest.join('');
  return null;
}

/**
 * The text a command substitution making a whole value prints, its last newlines removed as
 * bash removes them (`rm` of `$(echo rm)`, `` `printf rm` ``); null for any other value, or a
 * command other than echo or printf of literal words.
 */
export function substitutionValue(value: string): string | null {
  if (value.length > MAX_SOURCE) return null;
  const whole = WHOLE.exec(value);
  if (whole === null) return null;
  const read = lexOnce(whole[1] ?? whole[2]!);
  const segment = read.segments.length === 1 ? read.segments[0]! : undefined;
  if (read.problems.length > 0 || segment === undefined) return null;
  const { words, substitutions, redirections, inputs } = segment;
  if (substitutions.length > 0 || redirections.length > 0 || inputs.length > 0) return null;
  if (words.some((word) => word.dynamic)) return null;
  const texts = words.map((word) => word.text);
  const text = printedText(texts) ?? lookedUp(texts[0], texts.slice(1));
  return text === null ? null : text.replace(/\n+$/, '');
}

/**
 * The program a lookup prints the path of (`rm` of `which rm`, `command -v rm`, `type -P rm`),
 * or the name basename prints (`basename /bin/rm`): a path a program word runs as that program.
 */
function lookedUp(program: string | undefined, args: readonly string[]): string | null {
  const [first, second, ...rest] = args;
  if (rest.length > 0 || first === undefined) return null;
  if (program === 'which' || program === 'basename') return second === undefined ? first : null;
  const option = program === 'command' ? /^-[vV]$/ : program === 'type' ? /^-[pP]$/ : null;
  return option?.test(first) && second !== undefined ? second : null;
}

/** What echo or printf given these literal words (the program first) prints; null for any other. */
export function printedText(words: readonly string[]): string | null {
  const [program, ...args] = words;
  return program === 'echo' ? echoed(args) : program === 'printf' ? printed(args) : null;
}
