/**
 * Expansions that run a command the lexer does not see as a `$(...)`. Bash
 * evaluates an indexed array's subscript as arithmetic, and arithmetic
 * evaluates a variable's value again: a value such as `a[$(rm -rf y)]` runs
 * `rm` when `$((x))`, `${a[x]}`, or a builtin that takes a variable name
 * (`printf -v`, `declare`, `read`, `test -v`) meets it. `${x@P}` expands
 * a value as a prompt, which runs its substitutions, and so does zsh's
 * `${(e)x}`. The line is unknown.
 */

/** The placeholder the lexer puts in a word's shape for an expansion it keeps as written. */
export const EXPANSION_MARK = '\0';

/** `${name@OP}` (and `${name[i]@OP}`): a transformation; `@P` runs the value's substitutions. */
const TRANSFORMATION = /^[!#]?([A-Za-z_]\w*|[0-9]+|[@*#?$!-])(\[[^\]]*\])?@/;
/** zsh's `${(e)name}` (among other flags): the value's expansions and command substitutions run. */
const ZSH_EVALUATES = /^\([^)]*e/;
/** A word that names a variable or array element (`a[...]`, `a=...`): its subscripts are evaluated. */
const NAMES_VARIABLE = /^[A-Za-z_]\w*(\[|\+?=)/;

/**
 * Whether `payload` holds at some position inside square brackets of
 * `text` (nested or not). One pass, so a long word costs linear time; a
 * bracket left open runs to the end.
 */
function insideBrackets(text: string, payload: (text: string, at: number) => boolean): boolean {
  let depth = 0;
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (char === '[') depth++;
    else if (char === ']') depth = Math.max(0, depth - 1);
    else if (depth > 0 && payload(text, at)) return true;
  }
  return false;
}

const anyExpansion = (text: string, at: number) => text[at] === '$' || text[at] === '`';

/** Why the text inside `${...}` may run a command, or undefined. */
export function parameterProblem(inner: string): string | undefined {
  if (inner.includes('$(') || inner.includes('`')) return 'command inside ${';
  if (TRANSFORMATION.test(inner)) return 'a transformation inside ${ (@P runs substitutions)';
  if (ZSH_EVALUATES.test(inner)) return "zsh's (e) flag inside ${ (runs the value's substitutions)";
  if (insideBrackets(inner, anyExpansion)) return 'expansion inside an array subscript of ${';
  return undefined;
}

/** Why the text inside an unquoted `${...}` may run a command, or undefined: `<(...)` runs there too. */
export function unquotedParameterProblem(inner: string): string | undefined {
  if (inner.includes('<(') || inner.includes('>(')) return 'process substitution inside ${';
  return parameterProblem(inner);
}

/** Why the text inside `$((...))` may run a command, or undefined. */
export function arithmeticProblem(inner: string): string | undefined {
  if (inner.includes('$(') || inner.includes('`')) return 'command inside $((';
  if (insideBrackets(inner, anyExpansion)) return 'expansion inside an array subscript of $((';
  return undefined;
}

/**
 * Why a word may carry a command into a subscript, or undefined. `shape`
 * is the word's text with quotes removed and each expansion replaced by
 * {@link EXPANSION_MARK}: a quoted `$(`, `${`, `$NAME` or backtick inside
 * brackets is a payload (`x='a[$(rm -rf y)]'`); in a word that names a
 * variable (`a[$i]=1`, `x="a[${p}...]"`), so is any expansion inside brackets.
 */
export function subscriptProblem(shape: string): string | undefined {
  if (!shape.includes('[')) return undefined;
  const names = NAMES_VARIABLE.test(shape);
  const payload = (text: string, at: number) =>
    text[at] === '`' ||
    (text[at] === '$' && /[({A-Za-z_]/.test(text[at + 1] ?? '')) ||
    (names && text[at] === EXPANSION_MARK);
  return insideBrackets(shape, payload)
    ? 'a command or expansion inside an array subscript, which bash evaluates'
    : undefined;
}

/**
 * The commands a subscript payload word holds (`a[$(rm -rf y)]`, ``a[`rm -rf y`]``), read where
 * bash may evaluate the word: each `$(...)` (not `$((`) and backtick pair of its text.
 */
export function subscriptCommands(text: string): string[] {
  const commands: string[] = [];
  for (let at = 0; at < text.length; at++) {
    if (text[at] === '`') {
      const end = text.indexOf('`', at + 1);
      if (end < 0) break;
      commands.push(text.slice(at + 1, end));
      at = end;
    } else if (text.startsWith('$(', at) && text[at + 2] !== '(') {
      let depth = 0;
      let end = at + 1;
      for (; end < text.length; end++) {
        if (text[end] === '(') depth++;
        else if (text[end] === ')' && --depth === 0) break;
      }
      commands.push(text.slice(at + 2, end));
      at = end;
    }
  }
  return commands;
}
