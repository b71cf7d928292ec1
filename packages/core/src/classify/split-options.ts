import { ENVIRONMENT_PROGRAMS } from './environment-runners.js';
import type { ShellWord } from './lexed-line.js';
import { wrapperGrammar } from './wrapper-grammars.js';

/**
 * Programs whose options run a command, write, delete or widen what they
 * touch (`find -delete`, `sort --compress-program`, `rg --pre`, `sed -i`,
 * `git --output`, `cp --remove-destination`, `chmod -R`, `printf -v`).
 */
const OPTION_SENSITIVE = new Set([
  ...['find', 'fd', 'fdfind', 'sort', 'rg', 'sed', 'awk', 'gawk', 'mawk', 'nawk', 'git', 'tar'],
  ...['gtar', 'bsdtar', 'man', 'tree', 'base64', 'yq', 'eslint', 'tsc', 'uniq', 'xxd', 'curl'],
  ...['wget', 'zip', 'date', 'hostname', 'cloc', 'ack', 'ag', 'bat', 'fzf', 'ssh', 'scp', 'sftp'],
  ...['rsync', 'less', 'more', 'printf', 'declare', 'typeset', 'local', 'export', 'readonly'],
  ...['read', 'mapfile', 'readarray', 'test', '[', '[[', 'hash', 'trap', 'alias', 'dd'],
  ...['truncate', 'cp', 'mv', 'ln', 'chmod', 'chown', 'chgrp', 'install', 'tee', 'socat'],
]);

/** Wrappers outside the grammars, whose own options or command words may come from input. */
const OTHER_WRAPPERS = new Set([
  ...['env', 'watch', 'parallel', 'flock', 'entr', 'bwrap', 'nix-shell', 'nix'],
  ...ENVIRONMENT_PROGRAMS,
]);

/**
 * Whether `parallel` or `xargs` appending input words to `program` may make
 * it do more than its words say: its options act, or it is a wrapper
 * (`xargs env` runs the command it reads).
 */
export function appendedWordsAct(program: string): boolean {
  return (
    OPTION_SENSITIVE.has(program) ||
    OTHER_WRAPPERS.has(program) ||
    wrapperGrammar(program) !== undefined
  );
}

/**
 * Whether an argument of `program` holds an expansion bash splits into
 * several words (`find . -name $N`), where `program` takes options that
 * change what it does: the value may bring one (`N='x -delete'`).
 */
export function splitsIntoOptions(program: string, args: readonly ShellWord[]): boolean {
  return OPTION_SENSITIVE.has(program) && args.some((arg) => arg.splits);
}
