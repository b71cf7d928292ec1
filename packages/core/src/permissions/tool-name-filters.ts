import { ripgrepTypeEndings } from './ripgrep-types.js';

/** At most this many globs are read from one filter; a longer list limits nothing. */
const MAX_GLOBS = 16;

/**
 * Every spelling of a glob with its brace groups expanded (`*.{ts,tsx}` is `*.ts` and `*.tsx`),
 * or null for a nested group or more than MAX_GLOBS spellings.
 */
function expandBraces(glob: string): string[] | null {
  const open = glob.indexOf('{');
  if (open < 0) return glob.includes('}') ? null : [glob];
  const close = glob.indexOf('}', open);
  if (close < 0 || glob.slice(open + 1, close).includes('{')) return null;
  const rest = expandBraces(glob.slice(close + 1));
  if (rest === null) return null;
  const out: string[] = [];
  for (const choice of glob.slice(open + 1, close).split(',')) {
    for (const tail of rest) out.push(`${glob.slice(0, open)}${choice}${tail}`);
    if (out.length > MAX_GLOBS) return null;
  }
  return out;
}

/**
 * The globs one filter text names files by, as the searches read it: Claude Code's Grep splits it
 * at whitespace, and a part without a brace group at commas, each part a ripgrep --glob, whose
 * brace groups are alternatives (`*.{ts,tsx}`); null when one part cannot be read so.
 */
function filterGlobs(text: string): string[] | null {
  // Each brace group is one level of expandBraces: a long run of them is read as limiting nothing.
  if ((text.match(/\{/g)?.length ?? 0) > MAX_GLOBS) return null;
  const parts = text.split(/\s+/).filter((part) => part !== '');
  const globs: string[] = [];
  for (const part of parts) {
    const pieces = part.includes('{') && part.includes('}') ? [part] : part.split(',');
    for (const piece of pieces) {
      const spelled = expandBraces(piece);
      if (spelled === null) return null;
      globs.push(...spelled);
    }
  }
  return globs.length > 0 && globs.length <= MAX_GLOBS ? globs : null;
}

/** `*` and the text after a glob's last wildcard, or undefined when that text holds a `/` or none is. */
function nameEnding(glob: string): string | undefined {
  if (glob === '' || /^:|[!\\]/.test(glob)) return undefined;
  const wildcard = Math.max(glob.lastIndexOf('*'), glob.lastIndexOf('?'), glob.lastIndexOf(']'));
  const suffix = glob.slice(wildcard + 1);
  return wildcard < 0 || suffix.includes('/') ? undefined : `*${suffix}`;
}

/**
 * What every file a search's name filter (the texts at ToolTarget's `name_filter`) lets it read
 * is named like: for each glob of the filter (Claude Code's Grep reads `*.ts *.tsx`, `*.ts,*.tsx` and
 * `*.{ts,tsx}` as two), `*` and the text after its last wildcard (`*.ts` of `src/**` + `/*.ts`),
 * since a search may read it as a git pathspec (Gemini CLI's grep tries `git grep`), where `*`
 * crosses `/` (`s*` is `secrets/.env` too) and a name without one is a directory holding
 * anything; the literal text after the whole filter's last wildcard is the last glob's. None
 * when it limits nothing so: absent, a glob without a wildcard, a negation (`!*.md`), pathspec
 * magic (`:(exclude)*.md`), an escape, a nested brace or more than 16 globs.
 */
export function nameFilter(texts: readonly string[]): string[] | undefined {
  const globs = texts.length === 1 ? filterGlobs(texts[0]!) : null;
  if (globs === null) return undefined;
  const endings: string[] = [];
  for (const glob of globs) {
    const ending = nameEnding(glob);
    if (ending === undefined) return undefined;
    endings.push(ending);
  }
  return endings;
}

/**
 * What every file a search reads is named like, given its name filter's texts (Grep's `glob`) and
 * its ripgrep file type's (Grep's `type`): a glob given decides alone, since ripgrep reads a file
 * its `--glob` names whatever the `--type` (and skips one it does not); with no glob, the type's
 * globs ({@link ripgrepTypeEndings}). None when neither limits the names read so.
 */
export function searchNameFilter(
  globTexts: readonly string[],
  typeTexts: readonly string[],
): string[] | undefined {
  // Claude Code passes no --glob or --type for an empty one.
  if (globTexts.some((text) => text !== '')) return nameFilter(globTexts);
  const types = typeTexts.filter((text) => text !== '');
  return types.length === 1 ? ripgrepTypeEndings(types[0]!) : undefined;
}
