/**
 * The command line's file globs: `*` any run of characters within one path
 * segment, `?` one character other than `/`, `**` followed by `/` any
 * number of folders (none included), any other `**` any run of characters,
 * every other character literal. A leading `./` is dropped.
 *
 * Matching simulates the pattern's automaton over the whole set of places it
 * could be at, one character at a time (as RE2 does), so it never backtracks:
 * its time is the path's length times the pattern's, whatever both hold.
 */

const LITERAL = 0;
/** `?` */
const ONE = 1;
/** `*`: characters other than `/`. */
const WITHIN_SEGMENT = 2;
/** `**` not followed by `/`: any characters. */
const ANYTHING = 3;
/** `**` followed by `/`: nothing, or any characters ending with a `/`. */
const FOLDERS = 4;

interface Token {
  readonly kind: number;
  /** The character a LITERAL matches (a UTF-16 code unit). */
  readonly unit: number;
}

const SLASH = 0x2f;

/** A compiled path glob. */
export interface PathGlob {
  /** True when the whole path (with `/` between folders) matches. Never throws. */
  matches(path: string): boolean;
  /** True when some path below `folder` (`folder/…`; `''` for the walk's root) could match. Never throws. */
  mayMatchUnder(folder: string): boolean;
}

/** Compiles a command-line path glob (see the module's comment for its syntax). Never throws. */
export function compilePathGlob(pattern: string): PathGlob {
  const tokens = tokenize(pattern.replace(/^\.\//, ''));
  const accept = 2 * tokens.length;
  return {
    matches: (path) => run(tokens, path)?.[accept] === 1,
    // A path below the folder adds a non-empty name: any state but accepting may still lead there.
    mayMatchUnder: (folder) =>
      run(tokens, folder === '' ? '' : `${folder}/`)
        ?.subarray(0, accept)
        .includes(1) ?? false,
  };
}

function tokenize(pattern: string): Token[] {
  const tokens: Token[] = [];
  for (let index = 0; index < pattern.length; index++) {
    const unit = pattern.charCodeAt(index);
    if (pattern[index] === '*' && pattern[index + 1] === '*') {
      const folders = pattern[index + 2] === '/';
      tokens.push({ kind: folders ? FOLDERS : ANYTHING, unit: 0 });
      index += folders ? 2 : 1;
    } else if (pattern[index] === '*') tokens.push({ kind: WITHIN_SEGMENT, unit: 0 });
    else if (pattern[index] === '?') tokens.push({ kind: ONE, unit: 0 });
    else tokens.push({ kind: LITERAL, unit });
  }
  return tokens;
}

/**
 * The automaton's states after reading `path`, undefined when none is left:
 * `2 * i` is "before token i" (`2 * tokens.length` accepts), `2 * i + 1` is
 * "inside the FOLDERS token i, past at least one character", from which
 * only a `/` leads on.
 */
function run(tokens: readonly Token[], path: string): Uint8Array | undefined {
  const accept = 2 * tokens.length;
  let current = new Uint8Array(accept + 2);
  let next = new Uint8Array(accept + 2);
  // Entering "before token i" also enters every place a star may stand for nothing.
  const enter = (states: Uint8Array, from: number) => {
    for (let state = from; state <= accept; state += 2) {
      if (states[state] === 1) return;
      states[state] = 1;
      const kind = tokens[state / 2]?.kind;
      if (kind !== WITHIN_SEGMENT && kind !== ANYTHING && kind !== FOLDERS) return;
    }
  };
  enter(current, 0);
  for (let offset = 0; offset < path.length; offset++) {
    const unit = path.charCodeAt(offset);
    next.fill(0);
    let alive = false;
    for (let state = 0; state < accept; state++) {
      if (current[state] !== 1) continue;
      const token = tokens[state >> 1]!;
      const before = state & ~1;
      alive = true;
      if (token.kind === FOLDERS) {
        next[before + 1] = 1;
        if (unit === SLASH) enter(next, before + 2);
      } else if (token.kind === LITERAL) {
        if (unit === token.unit) enter(next, state + 2);
      } else if (token.kind === ONE) {
        if (unit !== SLASH) enter(next, state + 2);
      } else if (token.kind === WITHIN_SEGMENT) {
        if (unit !== SLASH) enter(next, state);
      } else enter(next, state);
    }
    if (!alive) return undefined;
    [current, next] = [next, current];
  }
  return current;
}
