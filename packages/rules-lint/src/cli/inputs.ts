import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { CONFIG_NAMES } from '../config/find-config.js';
import { describeFsError } from '../source/read-source.js';
import { UsageError } from './cli-io.js';
import { compilePathGlob } from './path-glob.js';

/** The name standing for standard input on the command line. */
export const STDIN = '-';

/** Folders never searched: dependencies and version control. */
const SKIPPED_FOLDERS = new Set(['node_modules', '.git']);

/** The one dot-folder a folder walk enters: the project's `.airlock/permissions.json` lives there. */
const SEARCHED_DOT_FOLDER = '.airlock';

/** The command line's inputs: the files to lint, and the folders on the way that could not be read. */
export interface ExpandedInputs {
  /** Files to lint in order, each unreadable folder in the place it was met. */
  readonly files: readonly string[];
  /** Why each unreadable folder of `files` could not be read (one line). */
  readonly unreadable: ReadonlyMap<string, string>;
}

/**
 * Turns the command line's FILE arguments into files to lint, in order and
 * without repeats: a file as given; a folder, every `*.json` and `*.jsonc`
 * below it (skipping `node_modules`, dot-folders other than `.airlock`, config files, tool
 * catalogs named `tools.json` or `*.tools.json`, `package.json`,
 * `package-lock.json` and tsconfig/jsconfig files); a glob (`*`, `**`, `?`),
 * the rule files it matches; `-`, standard input. A folder that cannot be
 * read (where a glob could match) is kept as unreadable, and the walk goes
 * on. Throws UsageError when a glob or folder gives nothing at all.
 */
export function expandInputs(args: readonly string[], cwd: string): ExpandedInputs {
  const files: string[] = [];
  const unreadable = new Map<string, string>();
  const seen = new Set<string>();
  const add = (file: string) => {
    if (!seen.has(file)) {
      seen.add(file);
      files.push(file);
    }
  };
  const addWalk = (walk: FolderWalk) => {
    for (const file of walk.found) add(file);
    for (const [folder, reason] of walk.unreadable) {
      unreadable.set(folder, reason);
      add(folder);
    }
  };
  for (const arg of args) {
    if (arg === STDIN) add(arg);
    else if (/[*?]/.test(arg)) {
      const walk = globFiles(arg, cwd);
      if (walk.found.length + walk.unreadable.size === 0)
        throw new UsageError(`no file matches "${arg}"`);
      addWalk(walk);
    } else if (isFolder(resolve(cwd, arg))) {
      const walk = ruleFilesUnder(arg, cwd);
      if (walk.found.length + walk.unreadable.size === 0)
        throw new UsageError(`no rule file under ${arg} (*.json or *.jsonc)`);
      addWalk(walk);
    } else add(arg);
  }
  return { files, unreadable };
}

/** What a walk found: rule files, and the folders it could not read with why. */
interface FolderWalk {
  readonly found: string[];
  readonly unreadable: Map<string, string>;
}

/**
 * A folder's entries sorted by name; undefined when it is gone (nothing to
 * lint there); the one-line reason when it cannot be read.
 */
function readFolder(path: string, shown: string): import('node:fs').Dirent[] | string | undefined {
  try {
    return readdirSync(path, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    return `${shown}: cannot read folder (${describeFsError(error)})`;
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Whether a file in a searched folder is taken as a rule file. */
function isRuleFileName(name: string): boolean {
  if ((CONFIG_NAMES as readonly string[]).includes(name)) return false;
  if (name === 'tools.json' || name.endsWith('.tools.json')) return false;
  if (name === 'package.json' || name === 'package-lock.json') return false;
  if (/^(tsconfig|jsconfig)(\..+)?\.json$/.test(name)) return false;
  return name.endsWith('.json') || name.endsWith('.jsonc');
}

function ruleFilesUnder(folder: string, cwd: string): FolderWalk {
  const result: FolderWalk = { found: [], unreadable: new Map() };
  const { found } = result;
  const walk = (relativeFolder: string) => {
    const entries = readFolder(resolve(cwd, relativeFolder), relativeFolder);
    if (typeof entries === 'string') result.unreadable.set(relativeFolder, entries);
    if (!Array.isArray(entries)) return;
    for (const entry of entries) {
      const path = join(relativeFolder, entry.name);
      if (entry.isDirectory()) {
        if (
          !SKIPPED_FOLDERS.has(entry.name) &&
          (!entry.name.startsWith('.') || entry.name === SEARCHED_DOT_FOLDER)
        )
          walk(path);
      } else if (entry.isFile() && isRuleFileName(entry.name)) found.push(path);
    }
  };
  walk(folder);
  return result;
}

/** Files matching a path glob: `*` and `?` within one segment, `**` across any number of folders. */
function globFiles(pattern: string, cwd: string): FolderWalk {
  const matcher = compilePathGlob(pattern.split(sep).join('/'));
  const base = pattern.startsWith('/') ? '/' : '.';
  const root = resolve(cwd, staticBase(pattern));
  const result: FolderWalk = { found: [], unreadable: new Map() };
  const shownOf = (path: string) => (base === '/' ? path : relative(cwd, path));
  const walk = (folder: string) => {
    const shownFolder = shownOf(folder);
    const entries = readFolder(folder, shownFolder || '.');
    // A folder the glob could match nothing in is no loss when it cannot be read.
    if (typeof entries === 'string' && matcher.mayMatchUnder(shownFolder.split(sep).join('/')))
      result.unreadable.set(shownFolder || '.', entries);
    if (!Array.isArray(entries)) return;
    for (const entry of entries) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) walk(path);
      } else if (entry.isFile()) {
        const shown = shownOf(path);
        if (isRuleFileName(entry.name) && matcher.matches(shown.split(sep).join('/')))
          result.found.push(shown);
      }
    }
  };
  walk(root);
  return result;
}

/** The leading folders of a glob that hold no wildcard: where to start walking. */
function staticBase(pattern: string): string {
  const parts = pattern.split('/');
  const fixed: string[] = [];
  for (const part of parts.slice(0, -1)) {
    if (/[*?]/.test(part)) break;
    fixed.push(part);
  }
  return fixed.join('/') || (pattern.startsWith('/') ? '/' : '.');
}
