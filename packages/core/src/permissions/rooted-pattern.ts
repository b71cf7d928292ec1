/**
 * A rooted POSIX path pattern (`src/**`, `docs/*.md`): matched against a
 * canonical path relative to the project root. `**` matches any run of
 * characters, `/` included, and a `**` segment may stand for no directory at all;
 * `*` any run without
 * `/`; `?` one character other than `/`; everything else is literal.
 */
export interface RootedPattern {
  readonly source: string;
  /** True when the whole rooted path matches. An escaped (absolute) path never matches. */
  matches(path: string): boolean;
  /**
   * True when some path under a rooted directory may match (`src` under `**` + `/*.key` or
   * `src/*` + `/*.key`, not under `docs/**`): a recursive read of the directory may reach it.
   */
  matchesUnder(directory: string): boolean;
}

type Token =
  | { kind: 'literal'; char: string }
  | { kind: 'star' }
  | { kind: 'globstar' }
  | { kind: 'globstar_slash' }
  | { kind: 'question' };

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  const chars = [...source];
  for (let i = 0; i < chars.length; i += 1) {
    const char = chars[i]!;
    if (char === '*' && chars[i + 1] === '*') {
      i += 1;
      // `**/` may also stand for no directory at all.
      if (chars[i + 1] === '/') {
        i += 1;
        tokens.push({ kind: 'globstar_slash' });
      } else tokens.push({ kind: 'globstar' });
    } else if (char === '*') tokens.push({ kind: 'star' });
    else if (char === '?') tokens.push({ kind: 'question' });
    else tokens.push({ kind: 'literal', char });
  }
  return tokens;
}

/**
 * Why a pattern cannot be a rooted pattern, or null when it can.
 * A rooted pattern is relative (no leading `/`) and has no `.` or `..` segment.
 */
export function rootedPatternProblem(source: string): string | null {
  if (source.startsWith('/')) {
    return `"${source}" is absolute; rooted patterns are relative to the project root (match host paths with "arguments")`;
  }
  if (source.split('/').some((segment) => segment === '.' || segment === '..' || segment === '')) {
    return `"${source}" has an empty, "." or ".." segment; write the canonical form (e.g. src/**)`;
  }
  return null;
}

/**
 * Compiles a rooted pattern. Matching is a dynamic program over pattern x
 * path (never a backtracking RegExp), so its cost is bounded by their product.
 */
export function compileRootedPattern(source: string): RootedPattern {
  const tokens = tokenize(source);
  return {
    source,
    matches(path: string): boolean {
      if (path.startsWith('/') || path === '..' || path.startsWith('../')) return false;
      return matchTokens(tokens, [...path]);
    },
    matchesUnder(directory: string): boolean {
      if (directory.startsWith('/') || directory === '..' || directory.startsWith('../')) {
        return false;
      }
      if (directory === '.') return tokens.length > 0;
      return matchesPrefix(tokens, [...`${directory}/`]);
    },
  };
}

function matchTokens(tokens: readonly Token[], text: readonly string[]): boolean {
  // reach[j]: the tokens consumed so far can end at text position j. Each
  // token is one linear pass, so a match costs O(tokens x text).
  let reach: boolean[] = new Array(text.length + 1).fill(false);
  reach[0] = true;
  for (const token of tokens) {
    const next = step(token, reach, text).reach;
    // Nothing reachable: no later token can bring a match back.
    if (!next.includes(true)) return false;
    reach = next;
  }
  return reach[text.length] === true;
}

/**
 * Whether some text starting with `prefix` matches: the tokens read so far consume the
 * whole prefix with tokens left (any path segment follows), or a `**` is still open at its end.
 */
function matchesPrefix(tokens: readonly Token[], prefix: readonly string[]): boolean {
  let reach: boolean[] = new Array(prefix.length + 1).fill(false);
  reach[0] = true;
  for (const token of tokens) {
    if (reach[prefix.length] === true) return true;
    const next = step(token, reach, prefix);
    if (next.open) return true;
    if (!next.reach.includes(true)) return false;
    reach = next.reach;
  }
  return false;
}

/** One token's linear pass over the text, and whether a `**` may run on past its end. */
function step(
  token: Token,
  reach: readonly boolean[],
  text: readonly string[],
): { reach: boolean[]; open: boolean } {
  const next: boolean[] = new Array(text.length + 1).fill(false);
  let open = false;
  for (let j = 0; j <= text.length; j += 1) {
    const here = reach[j] === true;
    const char = text[j];
    switch (token.kind) {
      case 'literal':
        if (here && char === token.char) next[j + 1] = true;
        break;
      case 'question':
        if (here && char !== undefined && char !== '/') next[j + 1] = true;
        break;
      case 'star':
        // Reachable from an earlier position with no `/` in between.
        open = open || here;
        next[j] = open;
        if (char === '/') open = false;
        break;
      case 'globstar':
        open = open || here;
        next[j] = open;
        break;
      case 'globstar_slash':
        // Nothing at all, or anything that ends with a `/`.
        open = open || here;
        if (here) next[j] = true;
        if (open && char === '/') next[j + 1] = true;
        break;
    }
  }
  const runsOn = token.kind === 'globstar' || token.kind === 'globstar_slash';
  return { reach: next, open: open && runsOn };
}
