import { compileRootedPattern, type RootedPattern } from './rooted-pattern.js';
import { canonicalUrl, foldedPathText } from './targets.js';

/**
 * What a deny or an ask over rooted path patterns names of a call beyond the paths its
 * patterns match: a call on a path reaches more than that path's text. Never an allow's
 * reading: widening what an allow covers would grant what nobody wrote.
 */

const patterns = new Map<string, RootedPattern>();
const CACHE_LIMIT = 5000;

/** A rooted pattern compiled once per source. */
export function rooted(source: string): RootedPattern {
  let compiled = patterns.get(source);
  if (compiled === undefined) {
    compiled = compileRootedPattern(source);
    if (patterns.size >= CACHE_LIMIT) patterns.clear();
    patterns.set(source, compiled);
  }
  return compiled;
}

/** What a target pattern reads of a call beside the target itself. */
export interface TargetCoverage {
  /**
   * The call removes its path targets with everything under them (its tool has the
   * `delete` or `destructive` trait): a deny or ask then also names a directory holding
   * every path its pattern matches (`config` or `.` for `config/secrets/**`).
   */
  readonly removesTree?: boolean;
}

/**
 * The directory every path a rooted pattern matches lies in, as far as its literal segments
 * say (`config/secrets` for `config/secrets/**`, `.` for `**` or `*.key`).
 */
function literalDirectory(source: string): string {
  const segments = source.split('/');
  const literal: string[] = [];
  // The last segment names the matched path itself, not a directory holding it.
  for (const segment of segments.slice(0, -1)) {
    if (segment.includes('*') || segment.includes('?')) break;
    literal.push(segment);
  }
  return literal.length === 0 ? '.' : literal.join('/');
}

/** Whether `path` (canonical, rooted) is `directory` or a directory above it. */
function holds(path: string, directory: string): boolean {
  return path === '.' || path === directory || directory.startsWith(`${path}/`);
}

function namesAsWritten(source: string, path: string, coverage: TargetCoverage): boolean {
  const pattern = rooted(source);
  // A pattern has no empty segment, so only a last `/*` or `/**` matches a trailing `/`.
  if (pattern.matches(path) || pattern.matches(`${path}/`)) return true;
  return coverage.removesTree === true && holds(path, literalDirectory(source));
}

const directories = new Map<string, string>();

/**
 * Whether a path (canonical, rooted, already passed through foldedPathText) lies above, at or
 * under a pattern's literal directory: only such a path can be named by the pattern or hold
 * what it matches, so a caller reading many paths skips the others without matching.
 */
export function nearGuardedPaths(source: string, foldedPath: string): boolean {
  let directory = directories.get(source);
  if (directory === undefined) {
    directory = foldedPathText(literalDirectory(source));
    if (directories.size >= CACHE_LIMIT) directories.clear();
    directories.set(source, directory);
  }
  if (directory === '.' || foldedPath === '.' || foldedPath === directory) return true;
  return foldedPath.startsWith(`${directory}/`) || directory.startsWith(`${foldedPath}/`);
}

/**
 * Whether a directory (canonical, rooted) holds every path a deny's or an ask's rooted pattern
 * matches (`.` or `config` for `config/secrets/**`), case and Unicode normalisation set aside:
 * a read tool given it (a search, a listing) may read them all.
 */
export function holdsGuardedPaths(source: string, path: string): boolean {
  if (holds(path, literalDirectory(source))) return true;
  return holds(foldedPathText(path), literalDirectory(foldedPathText(source)));
}

/**
 * Whether a directory (canonical, rooted) may hold a path a deny's or an ask's rooted pattern
 * matches: it holds them all ({@link holdsGuardedPaths}), or a path under it may match (`src`
 * under `**` + `/*.key` or `src/**` + `/*.key`, never under `docs/**`), case and Unicode
 * normalisation set aside: a recursive read of it (a search, a listing) may reach one.
 */
export function mayHoldGuardedPaths(source: string, path: string): boolean {
  if (holdsGuardedPaths(source, path) || rooted(source).matchesUnder(path)) return true;
  const foldedSource = foldedPathText(source);
  const foldedPath = foldedPathText(path);
  if (foldedSource === source && foldedPath === path) return false;
  return rooted(foldedSource).matchesUnder(foldedPath);
}

/** A shell glob's segment as a rooted pattern: a class (`[ab]`) is one character, an extglob anything. */
function segmentPattern(entry: string): string {
  if (/[@+!?*]\(/.test(entry)) return '*';
  return entry.replace(/\[[^\]]*\]?/g, '?');
}

function globReaches(source: string, directory: string, entry: string): boolean {
  const literal = literalDirectory(source);
  const below = directory === '.' ? literal !== '.' : literal.startsWith(`${directory}/`);
  if (!below) return holds(literal, directory);
  // The pattern's matches lie under one entry of the directory: the glob reaches them if it
  // may name that entry (`s?crets` names `secrets` of `secrets/**`).
  const next = (directory === '.' ? literal : literal.slice(directory.length + 1)).split('/')[0]!;
  return rooted(segmentPattern(entry)).matches(next);
}

/**
 * Whether a shell glob may name what a deny's or an ask's rooted pattern guards, or a directory
 * holding it: `directory` (canonical, rooted) is where the glob's first wildcard segment `entry`
 * lies (`.` and `s?crets` of `cat s?crets/key`). A pattern whose literal directory lies under it is
 * reached when `entry` may name the next segment towards it (`s?crets` or `*` names `secrets` of
 * `secrets/**`, `*.md` does not); one whose matches may lie directly in it always is. Case and
 * Unicode normalisation are set aside.
 */
export function globMayReach(source: string, directory: string, entry: string): boolean {
  if (globReaches(source, directory, entry)) return true;
  const folded = [source, directory, entry].map(foldedPathText) as [string, string, string];
  return globReaches(...folded);
}

/** Characters read as a wildcard in a segment of a pattern or a shell glob (more is safer). */
const SEGMENT_WILDCARDS = /[*?[\]{}()!@+\\]/;

/** A segment's literal text before its first wildcard and after its last (all of it without one). */
function literalEnds(segment: string): { prefix: string; suffix: string } {
  const chars = [...segment];
  const first = chars.findIndex((char) => SEGMENT_WILDCARDS.test(char));
  if (first < 0) return { prefix: segment, suffix: segment };
  const last = chars.findLastIndex((char) => SEGMENT_WILDCARDS.test(char));
  return { prefix: chars.slice(0, first).join(''), suffix: chars.slice(last + 1).join('') };
}

/** Whether no name matches both segments, as their literal prefixes and suffixes tell. */
function segmentsDisjoint(a: string, b: string): boolean {
  const left = literalEnds(a);
  const right = literalEnds(b);
  const prefixes = left.prefix.startsWith(right.prefix) || right.prefix.startsWith(left.prefix);
  const suffixes = left.suffix.endsWith(right.suffix) || right.suffix.endsWith(left.suffix);
  return !prefixes || !suffixes;
}

function namesMiss(source: string, last: string): boolean {
  const segments = source.split('/');
  // A name is a guarded path (its last segment the pattern's) or a directory holding them all
  // (at or above the literal directory, its last segment one of the directory's).
  const directory = literalDirectory(source);
  const around = [
    segments[segments.length - 1]!,
    ...(directory === '.' ? [] : directory.split('/')),
  ];
  return around.every((segment) => segmentsDisjoint(last, segment));
}

/**
 * Whether no name a shell glob gives (`src/*.ts`, `src/**` + `/*.ts`), every one ending in the
 * glob's last segment `last`, can be a path a deny's or an ask's rooted pattern matches or a
 * directory holding them all: `*.ts` never names `.env` of `**` + `/.env` or a `*.pem`. Sound
 * only for a command that does not read the names through (a recursive reader keeps asking).
 * Case and Unicode normalisation are set aside.
 */
export function globNamesMiss(source: string, last: string): boolean {
  if (last === '' || last.includes('**')) return false;
  return namesMiss(source, last) && namesMiss(foldedPathText(source), foldedPathText(last));
}

/** Names projects give files, never directories, though they have no extension. */
const EXTENSIONLESS_FILES = new Set([
  ...['Makefile', 'GNUmakefile', 'makefile', 'Dockerfile', 'Containerfile', 'Jenkinsfile'],
  ...['Vagrantfile', 'Gemfile', 'Rakefile', 'Procfile', 'Brewfile', 'Justfile', 'justfile'],
  ...['Pipfile', 'LICENSE', 'LICENCE', 'COPYING', 'CODEOWNERS'],
]);

/** Extensions that name directories (`conf.d`, `Foo.app`, `x.git`, `pkg.egg-info`). */
const DIRECTORY_EXTENSIONS =
  /\.(d|app|git|xcodeproj|xcworkspace|egg-info|dist-info|bundle|framework)$/i;

/**
 * Whether a read tool's path may be a directory it reads recursively: any but one whose last
 * segment has a file's extension (`src/a.ts`, `notes.md`) or is a name projects give files
 * (`Makefile`, `LICENSE`), which is read as the file it names (a read of every file would
 * otherwise ask under `**` + `/*.key`); an extension directories take (`conf.d`) may be one.
 */
export function mayBeDirectory(path: string): boolean {
  const last = path.slice(path.lastIndexOf('/') + 1);
  if (EXTENSIONLESS_FILES.has(last)) return false;
  if (DIRECTORY_EXTENSIONS.test(last)) return true;
  return !/^[^.]+(\.[^.]+)*\.[A-Za-z0-9_-]{1,16}$/.test(last);
}

/**
 * Whether a deny's or an ask's rooted pattern names a call's path (canonical, rooted): the
 * path it matches; the directory itself when the pattern names everything in it
 * (`secrets/**` or `secrets/*` names `secrets`), since a call on the directory (deleting,
 * moving it) reaches every path under it; a directory holding every path the pattern
 * matches when the call removes a tree ({@link TargetCoverage}); each also with case and
 * Unicode normalisation set aside, so `SECRETS/key` or a decomposed `é` does not slip past
 * a rule on a file system where they name the same file (on one that tells them apart, the
 * rule refuses or asks a little more than it says).
 */
export function bindingPatternNames(
  source: string,
  path: string,
  coverage: TargetCoverage,
): boolean {
  if (namesAsWritten(source, path, coverage)) return true;
  const foldedSource = foldedPathText(source);
  const foldedPath = foldedPathText(path);
  if (foldedSource === source && foldedPath === path) return false;
  return namesAsWritten(foldedSource, foldedPath, coverage);
}

/**
 * The URLs a deny or an ask reads for a URL target: the canonical one, and for text that is
 * no absolute URL (`internal.example.com/x`, `//internal.example.com/x`) the `https://` and
 * `http://` URLs a tool that fills in a scheme would fetch, so a rule over
 * `https://internal.example.com/*` is not passed by leaving the scheme out.
 */
export function bindingUrlTexts(text: string): readonly string[] {
  // `host:443/x` parses as a URL of the scheme `host:`: only `scheme://` says a scheme was given.
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return [text];
  const rest = text.trim().replace(/^\/\//, '');
  if (rest === '') return [text];
  return [text, canonicalUrl(`https://${rest}`).text, canonicalUrl(`http://${rest}`).text];
}
