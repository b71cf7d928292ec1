import { lstatSync, realpathSync, statSync } from 'node:fs';
import { rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { escapeForTerminal } from '../reporters/terminal-text.js';
import { UsageError } from './cli-io.js';

/** The stable code in every refusal to write a path: grep CI logs for it. */
export const UNSAFE_WRITE = 'unsafe-write';

/** The stable code when a file is not read because a link leads it out of the working folder. */
export const OUTSIDE_READ = 'outside-working-folder';

/** Whether `path` is `folder` or below it (both absolute). */
export function isInside(folder: string, path: string): boolean {
  const rest = relative(folder, path);
  return rest === '' || (!rest.startsWith('..') && !isAbsolute(rest));
}

/** Where an absolute path really leads: its real path, or its nearest existing folder's plus the rest. */
export function realTarget(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(realTarget(parent), basename(path));
  }
}

function realFolder(cwd: string): string {
  try {
    return realpathSync(cwd);
  } catch {
    return resolve(cwd);
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Why a path read as given is not read: it stands inside the working folder
 * but a symbolic link (the file or a folder on its way) leads it outside.
 * Undefined when it may be read, including a path the user names outside.
 */
function readEscape(path: string, cwd: string): string | undefined {
  const absolute = resolve(cwd, path);
  if (!isInside(resolve(cwd), absolute)) return undefined;
  if (isInside(realFolder(cwd), realTarget(absolute))) return undefined;
  return 'a symbolic link leads it outside the working folder';
}

/**
 * The one line saying why a file (relative to cwd, shown as given) is not
 * read, or undefined when it may be: every command, config, tool catalog,
 * baseline and the language server read files through this rule.
 */
export function readRefusal(path: string, cwd: string): string | undefined {
  const reason = readEscape(path, cwd);
  return reason === undefined ? undefined : `${path}: not read (${OUTSIDE_READ}): ${reason}`;
}

/**
 * Why rules-lint refuses to write a path (relative to cwd), or undefined when it may: a link
 * (a pull request can commit one where a report or a fix goes), or a path inside the working
 * folder that a link on its way leads outside. A plain path the command line names outside
 * (`--output "$RUNNER_TEMP/report.sarif"`) is the user's own choice and is written.
 */
export function writeRefusal(path: string, cwd: string): string | undefined {
  const absolute = resolve(cwd, path);
  if (isLink(absolute)) return 'it is a symbolic link; rules-lint never writes through links';
  if (isInside(resolve(cwd), absolute) && !isInside(realFolder(cwd), realTarget(absolute)))
    return 'a symbolic link on its way leads it outside the working folder';
  return undefined;
}

/** Throws the one-line UsageError (exit 2) when `path` may not be written; `what` names the option. */
export function requireWritable(path: string, cwd: string, what: string): void {
  const reason = writeRefusal(path, cwd);
  if (reason)
    throw new UsageError(
      `${escapeForTerminal(what)}: refused to write (${UNSAFE_WRITE}): ${reason}`,
    );
}

/**
 * Writes a file without following a link: checks it, writes a temporary
 * file beside it and renames that over it, so a link put there meanwhile
 * is replaced, never written through. Throws UsageError.
 */
export async function writeContained(
  path: string,
  cwd: string,
  text: string,
  what: string,
): Promise<void> {
  requireWritable(path, cwd, what);
  const absolute = resolve(cwd, path);
  const temporary = join(
    dirname(absolute),
    `.${basename(absolute)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`,
  );
  try {
    let mode: number | undefined;
    try {
      mode = statSync(absolute).mode & 0o7777;
    } catch {
      mode = undefined;
    }
    await writeFile(temporary, text, { flag: 'wx', ...(mode === undefined ? {} : { mode }) });
    await rename(temporary, absolute);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    const code = (error as { code?: unknown }).code;
    throw new UsageError(
      `${escapeForTerminal(what)}: cannot write (${typeof code === 'string' ? code : 'error'})`,
    );
  }
}
