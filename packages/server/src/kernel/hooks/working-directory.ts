import { placedDirectory } from '@airlock/core';
import type { TaskTable } from '../../store/schema.js';
import type { HookedCall } from './agent-calls.js';

/*
 * Where a hooked call was made: the agent's working directory (its `cwd`),
 * kept on the call's row. A call's relative paths and shell words name
 * other files from another directory, so a row's decision binds only the
 * call made from the directory it was decided for.
 */

/**
 * A directory as the stage reads it: an absolute one with its `.`, `..`,
 * doubled and trailing slashes resolved as text (`/repo/./src/` is
 * `/repo/src`); any other (relative, a Windows path) as given, since the
 * stage cannot place it. Null when the agent said none (the project root).
 */
function placeOf(directory: string | null | undefined): string | null {
  if (directory === null || directory === undefined) return null;
  return directory.startsWith('/') ? placedDirectory(directory) : directory;
}

/** True when the call was made from the directory its row was decided for. */
export function madeInRowDirectory(row: TaskTable, call: HookedCall): boolean {
  return placeOf(row.working_directory) === placeOf(call.workingDirectory);
}

/** The most characters of a directory a refusal names (its end, which tells two apart). */
const NAMED_DIRECTORY_MAX = 80;

/** A directory as a refusal names it: its last characters, or the project root when none. */
export function directoryNamed(directory: string | null | undefined): string {
  if (directory === null || directory === undefined) return 'the project root (no cwd)';
  return directory.length > NAMED_DIRECTORY_MAX
    ? `…${directory.slice(-NAMED_DIRECTORY_MAX)}`
    : directory;
}
