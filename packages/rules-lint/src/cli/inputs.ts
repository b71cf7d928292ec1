import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { CONFIG_NAMES } from '../config/find-config.js';
import { UsageError } from './cli-io.js';
import { compilePathGlob } from './path-glob.js';

/** The name standing for standard input on the command line. */
export const STDIN = '-';

/** Folders never searched: dependencies and version control. */
const SKIPPED_FOLDERS = new Set(['node_modules', '.git']);

/** The one dot-folder a folder walk enters: the project's `.airlock/permissions.json` lives there. */
const SEARCHED_DOT_FOLDER = '.airlock';

/**
 * Turns the command line's FILE arguments into files to lint, in order and
 * without repeats: a file as given; a folder, every `*.json` and `*.jsonc`
 * below it (skipping `node_modules`, dot-folders other than `.airlock`, config files, tool
 * catalogs named `tools.json` or `*.tools.json`, and package and tsconfig
 * files); a glob (`*`, `**`, `?`), the rule files it matches;
 * `-`, standard input. Throws UsageError when a glob or folder gives no file.
 */
export function expandInputs(args: readonly string[], cwd: string): string[] {
  const files: string[] = [];
  const seen = new Set<string>();
  const add = (file: string) => {
    if (!seen.has(file)) {
      seen.add(file);
      files.push(file);
    }
  };
  for (const arg of args) {
    if (arg === STDIN) add(arg);
    else if (/[*?]/.test(arg)) {
      const matched = globFiles(arg, cwd);
      if (matched.length === 0) throw new UsageError(`no file matches "${arg}"`);
      for (const file of matched) add(file);
    } else if (isFolder(resolve(cwd, arg))) {
      const found = ruleFilesUnder(arg, cwd);
      if (found.length === 0) throw new UsageError(`no rule file under ${arg} (*.json or *.jsonc)`);
      for (const file of found) add(file);
    } else add(arg);
  }
  return files;
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
  if (/^(package|tsconfig|jsconfig)\b.*\.json$/.test(name)) return false;
  return name.endsWith('.json') || name.endsWith('.jsonc');
}

function ruleFilesUnder(folder: string, cwd: string): string[] {
  const found: string[] = [];
  const walk = (relativeFolder: string) => {
    const entries = readdirSync(resolve(cwd, relativeFolder), { withFileTypes: true }).sort(
      (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
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
  return found;
}

/** Files matching a path glob: `*` and `?` within one segment, `**` across any number of folders. */
function globFiles(pattern: string, cwd: string): string[] {
  const matcher = compilePathGlob(pattern.split(sep).join('/'));
  const base = pattern.startsWith('/') ? '/' : '.';
  const root = resolve(cwd, staticBase(pattern));
  const found: string[] = [];
  const walk = (folder: string) => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) walk(path);
      } else if (entry.isFile()) {
        const shown = base === '/' ? path : relative(cwd, path);
        if (isRuleFileName(entry.name) && matcher.matches(shown.split(sep).join('/')))
          found.push(shown);
      }
    }
  };
  walk(root);
  return found;
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
