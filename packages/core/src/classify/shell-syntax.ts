/** Small pieces of shell syntax the lexer needs: backticks, `$'...'` escapes and where arithmetic ends. */

const SIMPLE_ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** Decodes one `$'...'` escape at `at` (after the backslash): its text and length. */
export function decodeEscape(source: string, at: number): [string, number] {
  const char = source[at]!;
  const simple = SIMPLE_ESCAPES[char];
  if (simple !== undefined) return [simple, 1];
  if (char === 'c' && at + 1 < source.length) {
    // `\cX` is a control character: `\c@` is NUL.
    return [String.fromCharCode(source.charCodeAt(at + 1) & 0x1f), 2];
  }
  const hex = /^x([0-9A-Fa-f]{1,2})/.exec(source.slice(at));
  if (hex) return [String.fromCharCode(Number.parseInt(hex[1]!, 16)), hex[0].length];
  // `\u` takes at most four hex digits, `\U` eight: `$'\u0073ecrets'` is `secrets`.
  const unicode = /^(?:u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8}))/.exec(source.slice(at));
  if (unicode) {
    const code = Number.parseInt((unicode[1] ?? unicode[2])!, 16);
    return [code <= 0x10ffff ? String.fromCodePoint(code) : '', unicode[0].length];
  }
  const octal = /^[0-7]{1,3}/.exec(source.slice(at));
  if (octal) return [String.fromCharCode(Number.parseInt(octal[0], 8) & 0xff), octal[0].length];
  return [`\\${char}`, 1];
}

/**
 * Where each `(` of a text closes, counted once for the whole text
 * (parentheses only; quotes are not read), so finding where arithmetic ends
 * costs no new scan at each `((` of a line such as `((((((...`.
 */
export class Parentheses {
  private closes: Int32Array | undefined;

  constructor(private readonly source: string) {}

  /** The index of the `)` closing the `(` at `open`, or -1 when none does. */
  closeOf(open: number): number {
    if (this.closes === undefined) {
      const closes = new Int32Array(this.source.length).fill(-1);
      const opens: number[] = [];
      for (let index = 0; index < this.source.length; index++) {
        if (this.source[index] === '(') opens.push(index);
        else if (this.source[index] === ')' && opens.length > 0) closes[opens.pop()!] = index;
      }
      this.closes = closes;
    }
    return this.closes[open] ?? -1;
  }

  /**
   * Where the `((` whose first parenthesis is at `open` closes as
   * arithmetic: the index of its `))`, or -1 when it is none. As bash reads
   * `$((` and `((`, it is arithmetic only when the second parenthesis closes
   * right before a `)`; otherwise it is a subshell (`$((cd x && rm -rf y) )`,
   * `$((ls) ; (rm -rf y))`), read as commands. Parentheses nest, so
   * `$((1+$(cmd)))` closes at its last `))`.
   */
  arithmeticEnd(open: number): number {
    if (this.source[open] !== '(' || this.source[open + 1] !== '(') return -1;
    const inner = this.closeOf(open + 1);
    return inner >= 0 && this.source[inner + 1] === ')' ? inner : -1;
  }
}

/** Words after which `((` at a command's start is bash's arithmetic command (`if ((x > 1))`). */
const BEFORE_ARITHMETIC = new Set([
  'for',
  'if',
  'elif',
  'while',
  'until',
  '!',
  'then',
  'do',
  'else',
  '{',
  'time',
]);

/**
 * Where the arithmetic command `((...))` opening at `start` closes: the
 * index of its `))`, or -1 when it is none. It is one where a command
 * starts (after nothing but keywords such as `if`, `while` or `for`) and its
 * parentheses close with an adjacent `))`; otherwise `((` opens two subshells.
 */
export function arithmeticCommandEnd(
  parentheses: Parentheses,
  start: number,
  before: readonly { readonly text: string }[],
): number {
  if (!atCommandStart(before)) return -1;
  return parentheses.arithmeticEnd(start);
}

/** Whether the words before `end` leave it where a command starts (only keywords such as `if`). */
export function atCommandStart(
  before: readonly { readonly text: string }[],
  end = before.length,
): boolean {
  // Stops at the first word that is no keyword, so a line of many words costs no rescan each.
  for (let index = 0; index < end; index++) {
    if (!BEFORE_ARITHMETIC.has(before[index]!.text)) return false;
  }
  return true;
}

/**
 * Whether an unquoted `[[` at `start` opens bash's conditional command: at
 * a command's start, and a word of its own. Inside it `&&`, `||`, `(`, `)`,
 * `<` and `>` are operators of the test, not separators or redirections.
 */
export function opensConditional(
  source: string,
  start: number,
  before: readonly { readonly text: string }[],
): boolean {
  return (
    source.startsWith('[[', start) &&
    /^[ \t\n]?$/.test(source[start + 2] ?? '') &&
    atCommandStart(before)
  );
}

/** The test operator at `at` inside `[[ ... ]]` that would otherwise end a word or a command, or null. */
export function conditionalOperator(source: string, at: number): string | null {
  const two = source.slice(at, at + 2);
  if (two === '&&' || two === '||') return two;
  return '()<>'.includes(source[at]!) ? source[at]! : null;
}

/** Where bash's old arithmetic `$[...]`, whose `[` is at `open`, closes (brackets nest); -1 when it does not. */
export function bracketArithmeticEnd(source: string, open: number): number {
  let depth = 0;
  for (let index = open; index < source.length; index++) {
    if (source[index] === '[') depth++;
    else if (source[index] === ']' && --depth === 0) return index;
  }
  return -1;
}

/**
 * The command inside backticks opening at `start`, and the index of the
 * closing backtick (the end of the source when there is none). As in bash,
 * a backslash is removed only before `$`, a backtick, a backslash or a
 * newline (and `"` when the backticks are inside double quotes); before
 * any other character it stays, for the inner command to read.
 */
export function readBackticks(
  source: string,
  start: number,
  quoted = false,
): { inner: string; end: number } {
  let end = start + 1;
  let inner = '';
  const removed = quoted ? '$`\\\n"' : '$`\\\n';
  while (end < source.length && source[end] !== '`') {
    if (source[end] === '\\' && end + 1 < source.length) {
      const next = source[end + 1]!;
      if (next !== '\n') inner += removed.includes(next) ? next : `\\${next}`;
      end += 2;
    } else inner += source[end++];
  }
  return { inner, end };
}

/**
 * The text of `$'...'` opening at `start` with its escapes decoded (so an
 * obfuscated name, `$'\x72m'`, reads as what it is), and the index of the
 * closing quote (the end of the source when there is none).
 */
export function readAnsiQuoted(source: string, start: number): { text: string; end: number } {
  let end = start + 2;
  let text = '';
  while (end < source.length && source[end] !== "'") {
    if (source[end] === '\\' && end + 1 < source.length) {
      const [decoded, length] = decodeEscape(source, end + 1);
      text += decoded;
      end += 1 + length;
    } else text += source[end++];
  }
  // Bash's strings end at a NUL: `$'-delete\0'` is the word `-delete`.
  const nul = text.indexOf('\0');
  return { text: nul < 0 ? text : text.slice(0, nul), end };
}

/**
 * Where an extglob group opened at `open` closes (`@(secrets|x)` of `cat @(secrets|x)/key`, one
 * glob word to bash after `shopt -s extglob`, spaces inside included), or -1 when the `(` opens
 * none: the word before it must end in `@+!*?` (a command's lone `!` negates a subshell), and the group
 * hold no quote or expansion (read as before, so a command it runs is walked).
 */
export function extglobGroupEnd(
  source: string,
  open: number,
  word: { readonly text: string; readonly close: number; readonly first: boolean },
): number {
  if (word.close < 0 || (word.first && word.text === '!') || !/[@+!*?]$/.test(word.text)) return -1;
  return /[$`'"\\\n]/.test(source.slice(open + 1, word.close)) ? -1 : word.close;
}

/** Keywords whose condition zsh may follow with a `{ LIST }` body. */
const SHORT_FORMS = new Set(['if', 'elif', 'while', 'until']);

/**
 * Whether the last of a command's `words` starts a body zsh runs where
 * bash refuses the line: any word after a test's `]]` (`if [[ x ]] {
 * LIST }`), a `{` after an `if`, `while` or `until` condition's first word
 * (`while true { LIST }`, also behind a wrapper), and `{ LIST } always {
 * LIST }`. `seen` says whether an earlier word was such a keyword.
 */
export function startsZshBody(
  words: readonly { readonly text: string }[],
  seen: { readonly test: boolean; readonly keyword: boolean },
): boolean {
  if (seen.test) return true;
  if (words.at(-1)?.text !== '{' || words.length < 3) return false;
  const always = words.length === 3 && words[0]!.text === '}' && words[1]!.text === 'always';
  return always || (seen.keyword && !SHORT_FORMS.has(words.at(-2)!.text));
}

/** Whether `word` is a keyword whose condition zsh may follow with a `{ LIST }` body. */
export function opensShortForm(word: { readonly text: string }): boolean {
  return SHORT_FORMS.has(word.text);
}

/** Pairs of delimiters zsh's qualifier arguments take; any other character closes itself. */
const QUALIFIER_CLOSERS: Record<string, string> = { '(': ')', '[': ']', '{': '}', '<': '>' };

/**
 * The code zsh's glob qualifiers in `qualifiers` (the text between a
 * pattern's parentheses) run for each file: `e:CODE:` (any delimiter, the
 * code's own quotes removed when they wrap it) and `+NAME`. Empty when
 * there is none. Linear: each delimiter is looked for once.
 */
export function globQualifierCode(qualifiers: string): string[] {
  const codes: string[] = [];
  for (let at = 0; at < qualifiers.length; at++) {
    const char = qualifiers[at]!;
    if (char === '+') {
      const name = /^[\w:-]+/.exec(qualifiers.slice(at + 1))?.[0];
      if (name) codes.push(name);
    } else if (char === 'e' && /[^\w\s]/.test(qualifiers[at + 1] ?? '')) {
      const open = qualifiers[at + 1]!;
      const close = qualifiers.indexOf(QUALIFIER_CLOSERS[open] ?? open, at + 2);
      if (close < 0) break;
      const code = qualifiers.slice(at + 2, close);
      codes.push(/^'[^']*'$|^"[^"]*"$/.test(code) ? code.slice(1, -1) : code);
      at = close;
    }
  }
  return codes;
}
