import { hasFlag } from './flags.js';
import type { ActionTag } from './tags.js';

/**
 * A word that may name a file on another machine: `host:path`, `user@host:path`,
 * rsync's `host::module` and `rsync://host/...`, or an expansion whose value
 * the classifier does not know. A `:` after a `/` is part of a local path
 * (`./a:b`), as rsync and scp read it.
 */
function mayBeRemote(word: string): boolean {
  return /^[^/:]+:/.test(word) || /^rsync:\/\//i.test(word) || /[$`]/.test(word);
}

/** rsync's options that list or simulate without writing: `--list-only`, `-n`/`--dry-run`. */
function rsyncWritesNothing(args: readonly string[]): boolean {
  return hasFlag(args, '--list-only', '-n', '--dry-run');
}

/**
 * File transfers over a remote shell. `scp` and `rsync` write their
 * destination (a local path, or a file on the remote host): `write`, or
 * `read` when rsync only lists or simulates. rsync between two local paths
 * talks to no other machine, so it is `network` only when an operand (or
 * option value) may name a remote one. `sftp` runs the commands its input or batch file
 * holds (`put`, `rm`...), which are not read: `unknown`. False for other
 * programs.
 */
export function transferTags(
  program: string,
  args: readonly string[],
  tags: Set<ActionTag>,
): boolean {
  if (program === 'scp') {
    tags.add('network');
    tags.add('write');
    return true;
  }
  if (program === 'sftp') {
    tags.add('network');
    tags.add('unknown');
    return true;
  }
  if (program !== 'rsync') return false;
  if (args.some((arg) => !arg.startsWith('-') && mayBeRemote(arg))) tags.add('network');
  tags.add(rsyncWritesNothing(args) ? 'read' : 'write');
  return true;
}
