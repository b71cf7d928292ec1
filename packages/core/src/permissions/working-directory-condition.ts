import type { PermissionRule } from '../schemas/permissions.js';
import { canonicalPath } from './targets.js';

/*
 * A rule's `working_directory`: the rule holds only for a call made in that
 * directory, as "remember exactly this call" keeps a hooked agent's call
 * (`cat key` approved in /repo/src is another call in /repo/secrets).
 */

/**
 * An absolute directory as rules compare it: `.`, `..`, doubled and trailing slashes resolved as
 * text, a `..` at the root staying there as the system keeps it (`/../etc` is `/etc`).
 */
export function placedDirectory(directory: string): string {
  const text = canonicalPath(directory, undefined).text;
  return text.startsWith('/..') ? text.replace(/^(\/\.\.)+(?=\/|$)/, '') || '/' : text;
}

/**
 * Where a call is made, as a rule's `working_directory` is compared with it: the agent's
 * working directory, else the project root; undefined when neither is absolute.
 */
export function callDirectory(
  workingDirectory: string | undefined,
  projectRoot: string | undefined,
): string | undefined {
  const made = workingDirectory ?? projectRoot;
  return made?.startsWith('/') ? placedDirectory(made) : undefined;
}

/** True when the rule names no working directory, or the call is made in the one it names. */
export function workingDirectoryHolds(
  rule: PermissionRule,
  call: { readonly directory?: string | undefined },
): boolean {
  if (rule.working_directory === undefined) return true;
  return call.directory !== undefined && placedDirectory(rule.working_directory) === call.directory;
}
