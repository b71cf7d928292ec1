import type { ShellWord } from './lexed-line.js';

/** A word a shell reads back as itself, unquoted: nothing in it is special to the shell. */
export const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** An argv array as one shell line, each element quoted so `["sh","-c","rm -rf /"]` stays three words. */
export function argvLine(argv: readonly string[]): string {
  return argv
    .map((part) => (PLAIN_WORD.test(part) ? part : `'${part.replaceAll("'", `'\\''`)}'`))
    .join(' ');
}

/** Per word array: the index from which every word is plain (worked out once per array). */
const PLAIN_FROM = new WeakMap<readonly ShellWord[], number>();

/**
 * The index from which every word of `words` is plain and no expansion, so
 * a shell reading them joined with spaces reads the same words: a wrapper
 * that runs them through a shell (`ssh h CMD`, `watch CMD`) may be read in
 * place instead of joined and read again at each level of a chain.
 */
export function plainFrom(words: readonly ShellWord[]): number {
  let from = PLAIN_FROM.get(words);
  if (from === undefined) {
    from = words.length;
    while (from > 0 && !words[from - 1]!.dynamic && PLAIN_WORD.test(words[from - 1]!.text)) from--;
    PLAIN_FROM.set(words, from);
  }
  return from;
}

/** `${IFS}` or `$IFS`: a field separator, so `rm${IFS}-rf${IFS}y` is three words. */
export const IFS = /\$\{IFS\}|\$IFS(?![A-Za-z0-9_])/g;

/** `$SHELL`, `$BASH` or `$0`, braced or with a default (`${SHELL:-sh}`): the shell itself. */
const SHELL_VARIABLE = /^\$(SHELL|BASH|0|\{(SHELL|BASH|0)(:?[-=?][^}]*)?\})$/;

/**
 * The program a dynamic program name surely runs, as far as its text tells:
 * a shell for `$SHELL`, `$BASH` and `$0` (read as bash, so `$SHELL -c
 * 'rm -rf x'` keeps rm's tags), else the word's literal part.
 */
export function programLiteral(text: string): string {
  return SHELL_VARIABLE.test(text) ? 'bash' : literalPart(text);
}

/** The index of the quote closing the one at `at` (a backslash escapes within `"`); the end when none does. */
function closingQuote(text: string, at: number, quote: string): number {
  for (let index = at + 1; index < text.length; index++) {
    if (quote === '"' && text[index] === '\\') index++;
    else if (text[index] === quote) return index;
  }
  return text.length;
}

/** A word's text without its expansions (`$(...)`, backticks, `${...}`, `$NAME`). */
export function literalPart(text: string): string {
  let literal = '';
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (char === '`') {
      const end = text.indexOf('`', index + 1);
      index = end < 0 ? text.length : end;
    } else if (char === '$' && (text[index + 1] === '(' || text[index + 1] === '{')) {
      const [open, close] = text[index + 1] === '(' ? ['(', ')'] : ['{', '}'];
      let depth = 0;
      let at = index + 1;
      // Quotes and backslashes hide a parenthesis or brace, as in the lexer (`${x-'}'}rm`).
      for (; at < text.length; at++) {
        if (text[at] === '\\') at++;
        else if (text[at] === "'") at = closingQuote(text, at, "'");
        else if (text[at] === '"') at = closingQuote(text, at, '"');
        else if (text[at] === open) depth++;
        else if (text[at] === close && --depth === 0) break;
      }
      index = at;
    } else if (char === '$' && /[A-Za-z0-9_@*#?$!-]/.test(text[index + 1] ?? '')) {
      index++;
      if (/[A-Za-z_]/.test(text[index]!)) while (/\w/.test(text[index + 1] ?? '')) index++;
    } else literal += char;
  }
  return literal;
}

/** A word split where it expands `$IFS`; a piece is dynamic while it holds another expansion. */
export function splitAtIfs(word: ShellWord): ShellWord[] {
  if (!word.dynamic) return [word];
  const pieces = word.text.split(IFS).filter((piece) => piece !== '');
  return pieces.map((text) => ({ text, dynamic: /[$`]/.test(text) }));
}

/** Whether a word in `words[from..to)` holds an expansion bash splits into several words. */
export function splitsBefore(words: readonly ShellWord[], from: number, to: number): boolean {
  for (let index = from; index < to && index < words.length; index++) {
    if (words[index]!.splits) return true;
  }
  return false;
}

/** The index of the first literal `text` after `from` (scanning from there, so a chain stays linear), or -1. */
export function wordAfter(words: readonly ShellWord[], from: number, text: string): number {
  for (let index = from + 1; index < words.length; index++) {
    if (!words[index]!.dynamic && words[index]!.text === text) return index;
  }
  return -1;
}
