import { constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { accessRefusal } from './backup-paths.js';

/**
 * What is wrong with `text` as a directory a setting names, which the kernel
 * makes when missing, or null when nothing is (as far as can be told without
 * making it): a file at the path or in place of one of its parents, a parent
 * it may not search, or a directory (the path itself, or the nearest parent
 * that exists when it is missing) this process may not write in. Nothing is
 * created: a refused start changes nothing.
 */
export function directoryProblem(text: string): string | null {
  const target = resolve(text);
  for (let path = target; ; path = dirname(path)) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch (error) {
      // Missing (or under a file): its parent says.
      const { code } = error as NodeJS.ErrnoException;
      if ((code === 'ENOENT' || code === 'ENOTDIR') && dirname(path) !== path) continue;
      return `cannot reach ${path} (${code ?? 'unknown error'})`;
    }
    if (!isDirectory) return `${path} is a file`;
    // The directory itself is also read (the file that names it); a parent need only take a new folder.
    const mode =
      path === target
        ? constants.R_OK | constants.W_OK | constants.X_OK
        : constants.W_OK | constants.X_OK;
    const refused = accessRefusal(path, mode);
    return refused === null ? null : `cannot write in ${path} (${refused})`;
  }
}
