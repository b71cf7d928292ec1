import { pointerTokens } from '../issues/problem.js';
import type { ToolManifestEntry, ToolTarget } from '../schemas/permissions.js';
import type { CanonicalTarget } from './canonical-target.js';
import { globParts } from './glob-words.js';
import { patchPaths } from './patch-paths.js';
import { searchNameFilter } from './tool-name-filters.js';
import { globSpellings, inHomeDirectory, toolPathSpellings } from './tool-path-spellings.js';
import {
  ANY_URL,
  canonicalUrl,
  MAX_URL_LENGTH,
  MAX_URL_TARGETS,
  urlsInText,
} from './url-targets.js';

export type { CanonicalTarget } from './canonical-target.js';
export { canonicalUrl } from './url-targets.js';

function normalizeSegments(path: string): string[] {
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else out.push('..');
    } else out.push(segment);
  }
  return out;
}

/** The links /proc gives each process (and each of its tasks) to a directory it may not name. */
const PROCESS_LINKS = new Set(['cwd', 'root']);
const STANDARD_STREAMS = new Set(['stdin', 'stdout', 'stderr']);

/**
 * Whether an absolute path runs through a link the kernel gives a process to a directory
 * (`/proc/self/cwd/secrets/key` is `secrets/key` of its working directory; `/proc/1/root`,
 * `/proc/self/fd/3/key` or `/dev/fd/3/key` under a directory opened as 3): it may lead
 * anywhere, the project included. Checked before `..` is folded away, which the kernel
 * applies after the link (`/proc/self/cwd/../repo`).
 */
function throughProcessLink(path: string): boolean {
  const seen: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') seen.pop();
    else seen.push(segment);
    const [top, second, third, fourth, fifth] = seen;
    if (top === 'proc' && third !== undefined) {
      const link = third === 'task' ? fifth : third;
      // `fd/N` is a file itself (`> /proc/self/fd/2`); only a path beyond it reads a directory.
      if (link !== undefined && PROCESS_LINKS.has(link)) return true;
      if (third === 'fd' && seen.length > 4) return true;
      if (third === 'task' && fifth === 'fd' && seen.length > 6) return true;
    }
    if (top === 'dev' && second === 'fd' && fourth !== undefined) return true;
    if (top === 'dev' && STANDARD_STREAMS.has(second ?? '') && third !== undefined) return true;
  }
  return false;
}

/**
 * Canonicalizes a path against the project root: inside the root it becomes
 * rooted POSIX form (`./src/../src/a.ts` -> `src/a.ts`, the root itself `.`);
 * a path that escapes the root stays absolute (`/etc/passwd`) and is not rooted.
 * Without a project root, relative paths are normalized and an escape keeps its
 * leading `..`. A path through a process's link to a directory (`/proc/self/cwd/...`) may be
 * anywhere: it holds the project.
 */
export function canonicalPath(raw: string, projectRoot: string | undefined): CanonicalTarget {
  const root = projectRoot === undefined ? null : normalizeSegments(projectRoot);
  if (root === null) {
    const segments = normalizeSegments(raw);
    const absolute = raw.startsWith('/');
    const escaped = absolute || segments[0] === '..';
    const text = absolute ? `/${segments.join('/')}` : segments.join('/') || '.';
    // With no project root an absolute path cannot be placed: it may lie in the project (a hooked
    // agent names every file absolutely), so a deny or an ask reads it as one that may hold what
    // it guards, never as a path outside.
    const unplaced = absolute ? { holdsProject: true, withoutProjectRoot: true as const } : {};
    return { kind: 'path', text, rooted: !escaped, raw, ...unplaced };
  }
  const joined = raw.startsWith('/') ? raw : `/${root.join('/')}/${raw}`;
  // Kept as written, so a relative word read in it later is checked again (`cd /proc/self/cwd/..`).
  if (throughProcessLink(joined))
    return { kind: 'path', text: joined, rooted: false, raw, holdsProject: true };
  const absolute = normalizeSegments(joined);
  // Above the filesystem root there is nothing: `/..` is `/`.
  const clean = absolute.filter((segment) => segment !== '..');
  const inside = root.every((segment, index) => clean[index] === segment);
  if (inside) {
    const relative = clean.slice(root.length).join('/');
    return { kind: 'path', text: relative || '.', rooted: true, raw };
  }
  const alike = (a: string | undefined, b: string | undefined) =>
    a !== undefined && b !== undefined && foldedPathText(a) === foldedPathText(b);
  const holdsProject = clean.every((segment, index) => alike(root[index], segment));
  const foldedInside = root.every((segment, index) => alike(clean[index], segment));
  return {
    kind: 'path',
    text: `/${clean.join('/')}`,
    rooted: false,
    raw,
    ...(holdsProject ? { holdsProject } : {}),
    ...(foldedInside ? { rootedWhenFolded: clean.slice(root.length).join('/') || '.' } : {}),
  };
}

/**
 * A path's text as a file system that ignores case and Unicode normalisation names it
 * (macOS's default APFS, Windows): `Secrets/Café` and `secrets/cafe\u0301` are one file there.
 */
export function foldedPathText(text: string): string {
  return text.normalize('NFC').toLowerCase();
}

function collect(value: unknown, tokens: readonly string[], out: string[]): void {
  if (tokens.length === 0) {
    if (typeof value === 'string') out.push(value);
    else if (Array.isArray(value)) {
      // A list where the manifest points at one path names each of its strings: an input
      // schema that lets a list through must not let its paths pass unread.
      for (const element of value) if (typeof element === 'string') out.push(element);
    }
    return;
  }
  const [token, ...rest] = tokens as [string, ...string[]];
  if (Array.isArray(value)) {
    if (token === '*') {
      for (const element of value) collect(element, rest, out);
      return;
    }
    if (/^(0|[1-9][0-9]*)$/.test(token)) collect(value[Number(token)], rest, out);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (Object.hasOwn(value, token)) {
    collect((value as Record<string, unknown>)[token], rest, out);
  } else if (token === '*') {
    // An object where the manifest expects a list: its members stand for the elements.
    for (const member of Object.values(value)) collect(member, rest, out);
  }
}

/**
 * Every string a JSON pointer reaches in an input; a `*` token walks every element of an
 * array (every member of an object sent in its place), and a list of strings where the
 * pointer ends names each of them.
 */
export function valuesAtPointer(input: unknown, pointer: string): string[] {
  return stringsAtPointer(input, pointer).filter((value) => value !== '');
}

/** {@link valuesAtPointer} with the empty strings kept. */
function stringsAtPointer(input: unknown, pointer: string): string[] {
  const out: string[] = [];
  collect(input, pointerTokens(pointer), out);
  return out;
}

/** What a path names when it cannot be placed: the filesystem root, a directory above the project. */
export const ANYWHERE: CanonicalTarget = {
  kind: 'path',
  text: '/',
  rooted: false,
  holdsProject: true,
  raw: '',
};

/**
 * Where a call's relative paths are read from: undefined for the project root (no working
 * directory said, or no project root to place it in); a canonical directory (`secrets`, or `/`
 * above the project) for an absolute working directory inside the project or above it; null
 * for one elsewhere or not absolute (a symbolic link or another mount may lead it into the
 * project, so its relative paths may be anywhere).
 */
export function workingBase(
  workingDirectory: string | undefined,
  projectRoot: string | undefined,
): string | null | undefined {
  if (workingDirectory === undefined || projectRoot === undefined) return undefined;
  if (!workingDirectory.startsWith('/')) return null;
  const place = canonicalPath(workingDirectory, projectRoot);
  return place.rooted || place.holdsProject === true ? place.text : null;
}

/**
 * A path as the tool reads it from its working directory ({@link workingBase}): a relative one
 * joined to it, an absolute one as given; null for a relative one from a working directory
 * that cannot be placed.
 */
export function inWorkingDirectory(raw: string, base: string | null | undefined): string | null {
  if (base === undefined || raw.startsWith('/')) return raw;
  if (base === null) return null;
  return raw === '' ? base : `${base}/${raw}`;
}

/**
 * A glob a tool expands, reading every file it matches (`src/**` + `/*.ts`, `.e*`): the directory
 * before its first wildcard segment with that segment as its entry, as a shell glob is read, and
 * its last segment, which every file it reads is named by; a brace alternative is read as `*`
 * (one crossing `/` names anywhere). A path with no wildcard is judged by its name, as a target
 * that does not say what it names: `README.md` is that file, `src` may be a directory read
 * through (Gemini CLI 0.61's glob skips directories, so it reads none, but one may not).
 */
function toolGlob(raw: string, projectRoot: string | undefined): CanonicalTarget {
  if (/\{[^}]*\//.test(raw)) return ANYWHERE;
  const text = raw.replace(/\{[^}]*\}?/g, '*');
  const glob = globParts(text);
  if (glob === null) return canonicalPath(raw, projectRoot);
  const globLast = text.slice(text.lastIndexOf('/') + 1);
  return { ...canonicalPath(glob.directory, projectRoot), globEntry: glob.entry, globLast };
}

/**
 * A directory a tool lists the names of (ToolTarget's `listing`), read as `ls DIR` is: it names
 * only itself, so a rule reads it only when it is a guarded path. Names alone are not guarded,
 * so a directory above the project root (`/`) lists nothing a rule guards, as one inside it that
 * holds a guarded directory does (`.`). An absolute path with no project root to place it in may
 * be a guarded directory itself, so it is read through (it asks).
 */
function listedDirectory(raw: string, projectRoot: string | undefined): CanonicalTarget {
  // A pattern's names lie under its literal directory (`secrets` of `secrets/**` + `/*.key`,
  // `.` of `{src,secrets}/*`), as find's lie under its operand whatever its -path says.
  const directory = globParts(raw.replace(/\{/g, '*'))?.directory ?? raw;
  const path = canonicalPath(directory, projectRoot);
  if (path.withoutProjectRoot === true) return { ...path, names: 'directory' };
  return { ...path, namedOnly: true };
}

/**
 * At most this many path targets are read of one call: each is compared with every path rule, and
 * 90,000 of them (1 MB of JSON) under 20 rules took 16 seconds. More are read as naming anywhere.
 */
export const MAX_PATH_TARGETS = 1000;

/** A path longer than Linux's PATH_MAX names no file a tool can open: it is read as anywhere. */
export const MAX_PATH_LENGTH = 4096;

/**
 * A target's relative paths joined to each directory its `under` field names (Glob's pattern to
 * its path); as given without one; null when they would be more than MAX_PATH_TARGETS.
 */
function underItsDirectory(paths: string[], target: ToolTarget, input: unknown): string[] | null {
  const directories =
    target.under === undefined
      ? []
      : valuesAtPointer(input, target.under).flatMap(toolPathSpellings);
  if (directories.length === 0) return paths;
  if (paths.length * directories.length > MAX_PATH_TARGETS) return null;
  return paths.flatMap((path) =>
    path.startsWith('/') ? [path] : directories.map((directory) => `${directory}/${path}`),
  );
}

/**
 * The glob of the files a tool may find for a relative path that names none (ToolTarget's
 * `when_missing: found_below`): any below the working directory whose path ends with it
 * (`**` + `/*secrets/key`, a directory's name ending `secrets` too); null when that directory
 * cannot be placed; undefined for a path the tool opens as given.
 */
function foundBelow(
  target: ToolTarget,
  raw: string,
  base: string | null | undefined,
): string | null | undefined {
  if (target.when_missing !== 'found_below' || raw === '' || raw.startsWith('/')) return undefined;
  return inWorkingDirectory(`**/*${raw}`, base);
}

/** How Claude Code and Codex name an MCP server's tool in a hook: `mcp__SERVER__TOOL`. */
const MCP_HOOK_PREFIX = 'mcp__';

/**
 * The directories a target's relative paths are read from: the working directory, and for a tool
 * whose server reads them from a root of its own (ToolTarget's `relative_to: server_root`) the
 * project root too (undefined), when the two differ.
 */
function readFrom(
  base: string | null | undefined,
  serverRoot: boolean,
): (string | null | undefined)[] {
  return serverRoot && base !== undefined && base !== '.' ? [base, undefined] : [base];
}

/** Whether a target's paths name files: `file`, and each path a patch names. */
function fileNamed(target: ToolTarget): 'file' | undefined {
  return target.names === 'file' || target.names === 'patch' ? 'file' : undefined;
}

/**
 * The canonical targets of a call, in the order the manifest lists its target fields, a
 * relative path read from the call's working directory ({@link inWorkingDirectory}) and, for a
 * tool whose server reads it from its own root ({@link readFrom}), from the project root too. An
 * empty path is the directory a tool resolves it against, the working directory (the project
 * root when none is given, `.`), as `path.resolve(cwd, '')` reads it: a tool deleting `""`
 * must meet the rules over what it holds; so is a missing one whose target says
 * `when_absent: working_directory` (a search given no path). An empty URL names nothing.
 */
export function callTargets(
  entry: (Pick<ToolManifestEntry, 'targets'> & { name?: string }) | undefined,
  input: unknown,
  projectRoot: string | undefined,
  workingDirectory?: string,
): CanonicalTarget[] {
  const base = workingBase(workingDirectory, projectRoot);
  const mcpTool = entry?.name?.startsWith(MCP_HOOK_PREFIX) === true;
  const targets: CanonicalTarget[] = [];
  let pathCount = 0;
  let overflow = false;
  let urlCount = 0;
  let urlOverflow = false;
  for (const target of entry?.targets ?? []) {
    const raws = stringsAtPointer(input, target.pointer);
    if (target.kind !== 'path') {
      const urls = (target.names === 'text' ? raws.flatMap(urlsInText) : raws).filter(Boolean);
      urlCount += urls.length;
      if (urlOverflow || urlCount > MAX_URL_TARGETS) {
        urlOverflow = true;
        continue;
      }
      for (const raw of urls)
        targets.push(raw.length > MAX_URL_LENGTH ? ANY_URL : canonicalUrl(raw));
      continue;
    }
    // A patch's text names the files it changes, each read as a file.
    const patch = target.names === 'patch';
    const spelled = raws.flatMap(toolPathSpellings);
    const globs = target.names === 'glob' ? spelled.flatMap(globSpellings) : spelled;
    const paths = patch ? raws.flatMap(patchPaths) : globs;
    const absent = paths.length === 0 && target.when_absent === 'working_directory';
    const filter =
      target.name_filter === undefined && target.name_type === undefined
        ? undefined
        : searchNameFilter(
            target.name_filter === undefined ? [] : stringsAtPointer(input, target.name_filter),
            target.name_type === undefined ? [] : stringsAtPointer(input, target.name_type),
          );
    const placedPaths = absent ? [''] : underItsDirectory(paths, target, input);
    const bases = readFrom(base, mcpTool || target.relative_to === 'server_root');
    const count = placedPaths === null ? 0 : placedPaths.length * bases.length;
    if (overflow || placedPaths === null || pathCount + count > MAX_PATH_TARGETS) {
      overflow = true;
      continue;
    }
    pathCount += count;
    const placings = placedPaths.flatMap((raw) =>
      (raw.startsWith('/') ? bases.slice(0, 1) : bases).map((from) => [raw, from] as const),
    );
    for (const [raw, base] of placings) {
      if (raw.length > MAX_PATH_LENGTH) {
        targets.push(ANYWHERE);
        continue;
      }
      // A path in the home directory (`~/repo/secrets/key`) may be anywhere, the project included;
      // a patch's names are joined to the working directory as written (Codex expands no `~`).
      const home = !patch && inHomeDirectory(raw);
      const placed = home ? null : inWorkingDirectory(raw, base);
      if (target.names === 'glob') {
        targets.push(placed === null ? ANYWHERE : toolGlob(placed, projectRoot));
        continue;
      }
      if (target.names === 'listing') {
        targets.push(placed === null ? ANYWHERE : listedDirectory(placed, projectRoot));
        continue;
      }
      const found = foundBelow(target, raw, base);
      if (found !== undefined)
        targets.push(found === null ? ANYWHERE : toolGlob(found, projectRoot));
      const path = placed === null ? ANYWHERE : canonicalPath(placed, projectRoot);
      const names = raw === '' || target.names === 'directory' ? 'directory' : fileNamed(target);
      const named: CanonicalTarget = names === undefined ? path : { ...path, names };
      targets.push(filter === undefined ? named : { ...named, readsOnlyNames: filter });
    }
  }
  // Too many paths to compare: the call may name anything; its URLs are read as before.
  const read = urlOverflow
    ? [...targets.filter((target) => target.kind !== 'url'), ANY_URL]
    : targets;
  return overflow ? [...read.filter((target) => target.kind === 'url'), ANYWHERE] : read;
}
