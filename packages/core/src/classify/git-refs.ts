import { hasFlag } from './flags.js';
import type { ActionTag } from './tags.js';

/** `git branch` options that only list branches (their values are no new branch). */
const BRANCH_LISTS = [
  ...['-l', '--list', '-a', '--all', '-r', '--remotes', '--contains', '--no-contains'],
  ...['--merged', '--no-merged', '--points-at', '--show-current', '-v', '--verbose'],
  ...['--format', '--sort', '--column'],
];

/**
 * `git branch` without deleting: `-f`, `-M` and `-C` move a branch or
 * overwrite one whatever it holds (`destructive`, as `reset --hard` is);
 * renaming, copying, setting an upstream or naming a new branch writes;
 * listing reads.
 */
export function branchTags(rest: readonly string[], tags: Set<ActionTag>): void {
  if (hasFlag(rest, '-f', '--force', '-M', '-C')) {
    tags.add('write');
    tags.add('destructive');
  } else if (
    hasFlag(rest, '-m', '--move', '-c', '--copy', '-u', '--set-upstream-to', '--unset-upstream') ||
    hasFlag(rest, '--edit-description', '-t', '--track', '--no-track')
  ) {
    tags.add('write');
  } else if (hasFlag(rest, ...BRANCH_LISTS)) tags.add('read');
  else tags.add(rest.some((arg) => !arg.startsWith('-')) ? 'write' : 'read');
}

/** Options of `git checkout` whose value is a branch name, not a path. */
const CHECKOUT_VALUED = new Set(['-b', '-B', '--orphan']);
/** A single checkout operand written as a path: `./x`, `dir/`, a glob, or a name with a file extension. */
const PATH_LIKE = /^(\.{1,2}\/|\/|:)|\/$|[*?[]|\.[A-Za-z][A-Za-z0-9]*$/;

/**
 * Whether `git checkout` or `git switch` throws local changes away or
 * resets a branch (`destructive`): checking out paths (`.`, `-- PATHS`,
 * `TREE PATH...`, one operand that reads as a path), `-f`, `-B`,
 * `--pathspec-from-file`; `switch -f`, `--discard-changes`, `-C`.
 * `git checkout NAME` with an extensionless file name reads as switching branches.
 */
export function discardsLocalChanges(verb: string, rest: readonly string[]): boolean {
  if (verb === 'switch') {
    return hasFlag(rest, '-f', '--force', '--discard-changes', '-C', '--force-create');
  }
  if (verb !== 'checkout') return false;
  if (rest.includes('.') || rest.includes('--') || hasFlag(rest, '-f', '--force', '-B')) {
    return true;
  }
  if (hasFlag(rest, '--pathspec-from-file')) return true;
  if (hasFlag(rest, '-b', '--orphan')) return false;
  const operands = rest.filter(
    (arg, index) => !arg.startsWith('-') && !CHECKOUT_VALUED.has(rest[index - 1] ?? ''),
  );
  return operands.length >= 2 || (operands.length === 1 && PATH_LIKE.test(operands[0]!));
}

/** A `-c` setting that makes `git gc` prune unreachable objects or reflogs at once. */
const GC_EXPIRES_NOW = /^gc\.(pruneexpire|reflogexpire|reflogexpireunreachable)=(now|all)$/i;

/**
 * Whether a git command deletes objects no ref or reflog reaches, which `git fsck` would still
 * find (a dropped stash, a commit reset away): `gc --prune=...` (or `-c gc.pruneExpire=now`),
 * `prune` but with `-n`, and `repack -a -d` (`-A` keeps them loose). `args` are git's words.
 */
export function dropsUnreachableObjects(
  verb: string,
  rest: readonly string[],
  args: readonly string[],
): boolean {
  if (verb === 'gc') {
    return (
      rest.some((arg) => /^--prune=/.test(arg)) || args.some((arg) => GC_EXPIRES_NOW.test(arg))
    );
  }
  if (verb === 'prune') return !hasFlag(rest, '-n', '--dry-run');
  return verb === 'repack' && hasFlag(rest, '-a') && hasFlag(rest, '-d') && !hasFlag(rest, '-A');
}
