/**
 * Wrappers that build a sandbox or an environment around a command:
 * bubblewrap (`bwrap --bind / / CMD`), whose options take one to three
 * values, and Nix's shells (`nix-shell --run 'CMD'`, `nix develop -c CMD`),
 * which evaluate a Nix expression (fetching and building what it needs,
 * and running its `shellHook`) before the command.
 */
import type { ShellWord } from './lexed-line.js';
import type { ActionTag } from './tags.js';
import type { Unwrapped } from './unwrapped.js';
import { splitsBefore } from './word-text.js';

/** How many values each bubblewrap option takes (any other option takes none or is unknown). */
const BWRAP_VALUES: Readonly<Record<string, number>> = {
  ...Object.fromEntries(
    [
      ...['--bind', '--ro-bind', '--dev-bind', '--bind-try', '--ro-bind-try', '--dev-bind-try'],
      ...['--symlink', '--setenv', '--file', '--bind-data', '--ro-bind-data', '--chmod'],
      '--bind-fd',
      '--ro-bind-fd',
    ].map((name) => [name, 2]),
  ),
  ...Object.fromEntries(
    [
      ...['--remount-ro', '--tmpfs', '--dev', '--proc', '--mqueue', '--dir', '--chdir'],
      ...['--unsetenv', '--lock-file', '--sync-fd', '--info-fd', '--json-status-fd', '--block-fd'],
      ...['--userns-block-fd', '--seccomp', '--add-seccomp-fd', '--userns', '--userns2'],
      ...['--pidns', '--uid', '--gid', '--hostname', '--exec-label', '--file-label', '--cap-add'],
      ...['--cap-drop', '--argv0', '--perms', '--size', '--overlay-src', '--tmp-overlay'],
      '--ro-overlay',
    ].map((name) => [name, 1]),
  ),
  '--overlay': 3,
};

const BWRAP_FLAGS = new Set([
  ...['--unshare-all', '--share-net', '--unshare-user', '--unshare-user-try', '--unshare-ipc'],
  ...['--unshare-pid', '--unshare-net', '--unshare-uts', '--unshare-cgroup', '--clearenv'],
  ...['--unshare-cgroup-try', '--die-with-parent', '--as-pid-1', '--new-session'],
  ...['--disable-userns', '--assert-userns-disabled', '--level-prefix'],
]);

/**
 * `bwrap [OPTIONS] [--] COMMAND...`: the command after the options. `--args
 * FD` reads more options from a descriptor, and an option it does not list
 * may take values: the command is then `unknown` as well, read from the
 * word after that option.
 */
function bwrap(words: readonly ShellWord[], from: number): Unwrapped {
  let index = from;
  let unknown = false;
  while (index < words.length) {
    const text = words[index]!.text;
    if (text === '--') {
      index++;
      break;
    }
    if (!text.startsWith('-')) break;
    if (text === '--help' || text === '--version') return { kind: 'no_command', tag: 'read' };
    const values = Object.hasOwn(BWRAP_VALUES, text) ? BWRAP_VALUES[text]! : undefined;
    if (text === '--args' || (values === undefined && !BWRAP_FLAGS.has(text))) unknown = true;
    index += 1 + (text === '--args' ? 1 : (values ?? 0));
  }
  if (splitsBefore(words, from, index)) unknown = true;
  if (index >= words.length) return { kind: 'no_command', tag: 'unknown' };
  return { kind: 'words', from: index, ...(unknown ? { tags: ['unknown'] } : {}) };
}

/** What a Nix shell does before the command: it may fetch and build, and runs a `shellHook`. */
const NIX_TAGS: readonly ActionTag[] = ['install_local', 'network', 'unknown'];

/**
 * `nix-shell ... --run CMD` and `--command CMD`: each such value is read as
 * a command line (a value of another option that looks like one is read too).
 * Without one it starts an interactive shell: `unknown`.
 */
function nixShell(words: readonly ShellWord[], from: number): Unwrapped {
  const lines: string[] = [];
  let dynamic = false;
  for (let index = from; index < words.length - 1; index++) {
    const text = words[index]!.text;
    if (text !== '--run' && text !== '--command') continue;
    lines.push(words[index + 1]!.text);
    dynamic ||= words[index + 1]!.dynamic;
  }
  if (lines.length === 0) return { kind: 'no_command', tag: 'unknown' };
  return { kind: 'line', line: lines.join('\n'), dynamic, tags: NIX_TAGS };
}

/** `nix develop ... -c CMD ARGS...` and `nix shell PKG... -c CMD ARGS...`: the words after `-c`. */
function nixCommand(words: readonly ShellWord[], from: number): Unwrapped | null {
  const verb = words.findIndex((word, at) => at >= from && !word.text.startsWith('-'));
  const name = verb < 0 ? '' : words[verb]!.text;
  if (name !== 'develop' && name !== 'shell') return null;
  const command = words.findIndex(
    (word, at) => at > verb && (word.text === '-c' || word.text === '--command'),
  );
  if (command < 0) return { kind: 'no_command', tag: 'unknown' };
  return { kind: 'words', from: command + 1, tags: NIX_TAGS };
}

/** The command a sandbox or Nix shell runs; null for any other program (or `nix` verb). */
export function sandboxWrapper(
  program: string,
  words: readonly ShellWord[],
  from: number,
): Unwrapped | null {
  if (program === 'bwrap') return bwrap(words, from);
  if (program === 'nix-shell') return nixShell(words, from);
  if (program === 'nix') return nixCommand(words, from);
  return null;
}
