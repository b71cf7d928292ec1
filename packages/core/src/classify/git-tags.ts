import type { EmbeddedCommands } from './embedded.js';
import { hasFlag, namesLongOption, optionValues } from './flags.js';
import { gitReadsOnly, gitStashReads, gitSubcommandReads } from './git-read-verbs.js';
import { branchTags, discardsLocalChanges, dropsUnreachableObjects } from './git-refs.js';
import type { ActionTag } from './tags.js';

const GIT_READ = new Set(
  ['status', 'log', 'diff', 'show', 'blame', 'grep', 'ls-files', 'ls-tree', 'rev-parse'].concat([
    'describe',
    'shortlog',
    'reflog',
    'cat-file',
    'rev-list',
    'whatchanged',
    'version',
    'help',
    // The plumbing diffs: they take the same options (`--output=FILE` included) and touch no index.
    'diff-files',
    'diff-index',
    'diff-tree',
  ]),
);

/**
 * git's own commands (`git help -a`). Any other verb is an alias from a
 * configuration file or a `git-VERB` program on the PATH: what it runs is
 * not read. An alias cannot shadow one of these names.
 */
export const GIT_COMMANDS: ReadonlySet<string> = new Set([
  ...['add', 'am', 'annotate', 'apply', 'archive', 'bisect', 'blame', 'branch', 'bugreport'],
  ...['bundle', 'cat-file', 'check-attr', 'check-ignore', 'check-mailmap', 'check-ref-format'],
  ...['checkout', 'checkout-index', 'cherry', 'cherry-pick', 'clean', 'clone', 'column'],
  ...['commit', 'commit-graph', 'commit-tree', 'config', 'count-objects', 'describe'],
  ...['diagnose', 'diff', 'diff-files', 'diff-index', 'diff-tree', 'fast-export'],
  ...['fast-import', 'fetch', 'fetch-pack', 'fmt-merge-msg', 'for-each-ref', 'format-patch'],
  ...['fsck', 'gc', 'get-tar-commit-id', 'grep', 'hash-object', 'help', 'index-pack', 'init'],
  ...['init-db', 'interpret-trailers', 'log', 'ls-files', 'ls-remote', 'ls-tree', 'mailinfo'],
  ...['mailsplit', 'maintenance', 'merge', 'merge-base', 'merge-file', 'merge-tree', 'mktag'],
  ...['mktree', 'multi-pack-index', 'mv', 'name-rev', 'notes', 'pack-objects', 'pack-refs'],
  ...['patch-id', 'prune', 'prune-packed', 'pull', 'push', 'range-diff', 'read-tree'],
  ...['rebase', 'reflog', 'refs', 'remote', 'repack', 'replace', 'replay', 'rerere', 'reset'],
  ...['restore', 'rev-list', 'rev-parse', 'revert', 'rm', 'shortlog', 'show', 'show-branch'],
  ...['show-index', 'show-ref', 'sparse-checkout', 'stash', 'status', 'stripspace'],
  ...['submodule', 'switch', 'symbolic-ref', 'tag', 'unpack-file', 'unpack-objects'],
  ...['update-index', 'update-ref', 'update-server-info', 'var', 'verify-commit'],
  ...['verify-pack', 'verify-tag', 'version', 'whatchanged', 'worktree', 'filter-branch'],
  ...['difftool', 'mergetool', 'filter-repo'],
]);

/**
 * Configuration keys whose value git runs as a command (or from which it
 * loads code), lowercase. `alias.*` and `credential.helper` are read apart:
 * only some of their values are commands.
 */
const COMMAND_KEY =
  /^(core\.(sshcommand|pager|editor|askpass|fsmonitor|gitproxy)|sequence\.editor|diff\.external|gpg\.([a-z0-9]+\.)?program|uploadpack\.packobjectshook|remote\..+\.(uploadpack|receivepack)|web\.browser|(browser|man|difftool|mergetool)\..+\.(cmd|path)|pager\..+|interactive\.difffilter|core\.alternaterefscommand|imap\.tunnel|sendemail\.(tocmd|cccmd|sendmailcmd)|hook\..+\.command|filter\..+\.(clean|smudge|process)|merge\..+\.driver|diff\..+\.(textconv|command))$/;
/** Keys that make git load hooks or configuration from files the classifier cannot read. */
const FILE_KEY = /^(core\.hookspath|include\.path|includeif\..+\.path|init\.templatedir)$/;
/** Keys that allow the `ext::` transport, whose URL is a command git runs. */
const EXT_KEY = /^protocol\.(ext\.)?allow$/;
const BOOLEAN = /^(true|false|yes|no|on|off|0|1)$/i;

/** The command a `key=value` configuration entry makes git run, if any. */
function configCommand(key: string, value: string, out: EmbeddedCommands): void {
  const name = key.toLowerCase();
  const via = `git config ${name}`;
  if (name.startsWith('alias.')) {
    // `!cmd` runs a shell command; any other value runs git with those words.
    out.lines.push({ line: value.startsWith('!') ? value.slice(1) : `git ${value}`, via });
  } else if (/^submodule\..+\.update$/.test(name)) {
    // `!cmd` makes `git submodule update` run the command instead of a checkout.
    if (value.startsWith('!')) out.lines.push({ line: value.slice(1), via });
  } else if (/^credential\.(.+\.)?helper$/.test(name)) {
    if (value.startsWith('!')) out.lines.push({ line: value.slice(1), via });
    else if (/[/\s$`]/.test(value)) out.lines.push({ line: value, via });
  } else if (FILE_KEY.test(name)) {
    out.unknown ??= `${via} loads hooks or configuration from files`;
  } else if (EXT_KEY.test(name) && /^always$/i.test(value)) {
    out.unknown ??= `${via} allows ext:: URLs, which run a command`;
  } else if (COMMAND_KEY.test(name) && value !== '' && !BOOLEAN.test(value)) {
    out.lines.push({ line: value, via });
  }
}

/** git's global options that take the next word as their value (`--attr-source TREE`). */
export const GIT_VALUED = new Set([
  ...['-C', '--git-dir', '--work-tree', '--namespace', '--attr-source', '--super-prefix'],
]);
/** git's global options that take no value. */
const GIT_FLAGS = new Set([
  ...['-p', '--paginate', '-P', '--no-pager', '--bare', '--no-replace-objects'],
  ...['--no-lazy-fetch', '--no-optional-locks', '--no-advice', '--literal-pathspecs'],
  ...['--glob-pathspecs', '--noglob-pathspecs', '--icase-pathspecs', '--html-path'],
  ...['--man-path', '--info-path', '--exec-path', '-v', '-h'],
]);

/** The global options before git's verb: `-c key=value` entries run commands later. */
function gitVerb(args: readonly string[], out: EmbeddedCommands): { verb: string; rest: string[] } {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === '-c' || arg.startsWith('-c')) {
      const entry = arg === '-c' ? (args[++index] ?? '') : arg.slice(2);
      const equals = entry.indexOf('=');
      configCommand(equals < 0 ? entry : entry.slice(0, equals), entry.slice(equals + 1), out);
    } else if (arg.startsWith('--config-env') || arg.startsWith('--exec-path=')) {
      out.unknown ??= `git ${arg.split('=')[0]} takes commands from the environment`;
      if (arg === '--config-env') index++;
    } else if (GIT_VALUED.has(arg)) index++;
    else if (!arg.startsWith('-')) return { verb: arg, rest: args.slice(index + 1) };
    else if (arg === '--version' || arg === '--help') return { verb: 'version', rest: [] };
    else if (!GIT_FLAGS.has(arg) && !/^--[a-z-]+=/.test(arg)) {
      // git takes no abbreviation here: an option it does not know may take the verb as its value.
      out.unknown ??= `git ${arg} is an option the classifier does not know`;
    }
  }
  return { verb: '', rest: [] };
}

const CONFIG_SCOPES = new Set(['--global', '--system']);
const CONFIG_VALUED = new Set(['-f', '--file', '--blob', '--type', '--default', '--comment']);
const CONFIG_READS =
  /^--(get|get-all|get-regexp|get-urlmatch|get-color|get-colorbool|list|show-origin|show-scope|name-only|null|includes|no-includes)$|^-[lz]$/;

/** `git config`: reading is `read`; setting writes, and a user-wide or system-wide change is shared state. */
function configTags(rest: readonly string[], tags: Set<ActionTag>, out: EmbeddedCommands): void {
  let verb = '';
  const operands: string[] = [];
  let reads = false;
  let unsets = false;
  let edits = false;
  let shared = false;
  for (let index = 0; index < rest.length; index++) {
    const arg = rest[index]!;
    if (CONFIG_SCOPES.has(arg)) shared = true;
    else if (CONFIG_VALUED.has(arg)) index++;
    else if (/^--(unset|unset-all|remove-section|rename-section)$/.test(arg)) unsets = true;
    else if (arg === '-e' || arg === '--edit') edits = true;
    else if (CONFIG_READS.test(arg)) reads = true;
    else if (!arg.startsWith('-')) operands.push(arg);
  }
  // git 2.46 verbs: `git config get|list|set|unset|edit|rename-section|remove-section`.
  if (
    ['get', 'list', 'set', 'unset', 'edit', 'rename-section', 'remove-section'].includes(
      operands[0] ?? '',
    )
  ) {
    verb = operands.shift()!;
    if (verb === 'get' || verb === 'list') reads = true;
    if (verb === 'unset' || verb.endsWith('-section')) unsets = true;
    if (verb === 'edit') edits = true;
  }
  const [key, value] = operands;
  if (!unsets && !edits && (reads || value === undefined)) {
    tags.add('read');
    return;
  }
  tags.add(unsets ? 'delete' : 'write');
  if (shared) {
    tags.add('external');
    tags.add('destructive');
  }
  if (key !== undefined && value !== undefined) configCommand(key, value, out);
  if (edits) out.unknown ??= 'git config --edit writes what a person types';
}

/** `git worktree`: removing one deletes its files; `--force` discards its uncommitted changes. */
function worktreeTags(rest: readonly string[], tags: Set<ActionTag>): void {
  const verb = rest.find((arg) => !arg.startsWith('-')) ?? 'list';
  if (verb === 'list') tags.add('read');
  else if (verb === 'remove' || verb === 'prune') {
    tags.add('delete');
    if (hasFlag(rest, '-f', '--force')) tags.add('destructive');
  } else tags.add('write');
}

/** Options of git verbs whose value is a command git runs. */
const VERB_OPTIONS = new Map<string, readonly string[]>(
  Object.entries({
    rebase: ['-x', '--exec'],
    // The program git starts to serve the other side: a command line, run here for a local path.
    clone: ['-u', '--upload-pack'],
    fetch: ['--upload-pack'],
    pull: ['--upload-pack'],
    'ls-remote': ['-u', '--upload-pack'],
    push: ['--receive-pack', '--exec'],
    archive: ['--exec'],
    difftool: ['-x', '--extcmd'],
    mergetool: ['--tool-cmd'],
    grep: ['-O', '--open-files-in-pager'],
    'filter-branch': [
      ...['--env-filter', '--tree-filter', '--index-filter', '--parent-filter', '--msg-filter'],
      ...['--commit-filter', '--tag-name-filter'],
    ],
  }),
);

/** Verbs that take a command to run: `submodule foreach`, `bisect run`, `rebase --exec`... */
function verbCommands(verb: string, rest: readonly string[], out: EmbeddedCommands): void {
  const via = `git ${verb}`;
  if (verb === 'submodule' && rest.includes('foreach')) {
    const words = rest.slice(rest.indexOf('foreach') + 1).filter((arg) => arg !== '--recursive');
    if (words.length > 0) out.lines.push({ line: words.join(' '), via: 'git submodule foreach' });
  }
  // `--template=DIR` copies its hooks, which the checkout and later commits run;
  // `git clone -c key=value` writes the entry into the new repository's configuration.
  if (
    (verb === 'clone' || verb === 'init' || verb === 'init-db') &&
    rest.some((arg) => namesLongOption(arg, '--template'))
  ) {
    out.unknown ??= `git ${verb} --template copies hooks from a directory`;
  }
  if (verb === 'clone') {
    for (const entry of optionValues(rest, ['-c', '--config'])) {
      const equals = entry.indexOf('=');
      configCommand(equals < 0 ? entry : entry.slice(0, equals), entry.slice(equals + 1), out);
    }
  }
  if (verb === 'bisect' && rest[0] === 'run' && rest.length > 1) {
    out.lines.push({ line: rest.slice(1).join(' '), via: 'git bisect run' });
  }
  const options = VERB_OPTIONS.get(verb);
  if (options === undefined) return;
  for (let index = 0; index < rest.length; index++) {
    const arg = rest[index]!;
    let value: string | undefined;
    let name = arg;
    // git takes any unambiguous prefix of a long option (`--upload-p=...`).
    const long = options.find((option) => namesLongOption(arg, option));
    if (options.includes(arg)) value = rest[++index];
    else if (long !== undefined) {
      name = long;
      value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : rest[++index];
    } else {
      const short = options.find(
        (o) => o.length === 2 && arg.startsWith(o) && !arg.startsWith('--'),
      );
      if (short === undefined) continue;
      name = short;
      value = arg.slice(2);
    }
    if (value) out.lines.push({ line: value, via: `${via} ${name}` });
  }
}

/**
 * `git remote` subcommands that ask the remote (`network`, as `git fetch`):
 * `update` fetches, `prune` asks which branches it still has (and drops the
 * remote-tracking ones it lost, as `git fetch --prune` does), `add -f`
 * fetches and `set-head -a` asks for its HEAD.
 */
function remoteTags(rest: readonly string[], tags: Set<ActionTag>): void {
  const sub = rest.find((arg) => !arg.startsWith('-'));
  if (
    sub === 'update' ||
    sub === 'prune' ||
    (sub === 'add' && hasFlag(rest, '-f', '--fetch')) ||
    (sub === 'set-head' && hasFlag(rest, '-a', '--auto'))
  ) {
    tags.add('network');
  }
}

/** Whether `git -c alias.VERB=...` defines the verb on the line itself (its value is read). */
export function aliasGiven(args: readonly string[], verb: string): boolean {
  const prefix = `alias.${verb.toLowerCase()}=`;
  return args.some((arg) => arg.replace(/^-c/, '').toLowerCase().startsWith(prefix));
}

/**
 * The tags of a git command, and in `out` the commands it makes git run
 * (now or later): `-c alias.x='!cmd'`, `-c core.sshCommand=...`,
 * `git config alias.* ...`, `submodule foreach`, `rebase --exec`...
 */
export function gitTags(
  args: readonly string[],
  tags: Set<ActionTag>,
  out: EmbeddedCommands,
): void {
  const { verb, rest } = gitVerb(args, out);
  verbCommands(verb, rest, out);
  // An `ext::` URL is a command git runs (when protocol.ext.allow lets it), `%`-escaped.
  if (rest.some((arg) => /ext::/i.test(arg))) out.unknown ??= 'an ext:: URL runs a command';
  if (verb === 'config') configTags(rest, tags, out);
  else if (verb === 'worktree') worktreeTags(rest, tags);
  else if (gitReadsOnly(verb, rest)) tags.add('read');
  else if (gitSubcommandReads(verb, rest) !== null) {
    for (const tag of gitSubcommandReads(verb, rest)!) tags.add(tag);
  } else if (GIT_READ.has(verb) || (verb === 'stash' && gitStashReads(rest))) {
    tags.add('read');
    // `git log --output=FILE` (diff, show, ...) writes its output to a file.
    if (rest.some((arg) => arg === '--output' || arg.startsWith('--output='))) tags.add('write');
    // Expiring or deleting reflog entries drops what `git reflog` would recover.
    if (verb === 'reflog' && (rest[0] === 'expire' || rest[0] === 'delete')) {
      tags.delete('read');
      tags.add(rest[0] === 'delete' ? 'delete' : 'write');
      tags.add('destructive');
    }
  } else if (verb === 'tag' && !hasFlag(rest, '-d', '--delete', '-l', '--list')) {
    tags.add(rest.some((arg) => !arg.startsWith('-')) ? 'write' : 'read');
  } else if (verb === 'branch' && !hasFlag(rest, '-D', '-d', '--delete')) branchTags(rest, tags);
  else if (verb === 'update-ref') {
    // Moving or deleting a ref outright skips every check `git branch` makes.
    tags.add(hasFlag(rest, '-d') ? 'delete' : 'write');
    tags.add('destructive');
  } else if (verb === 'branch' || verb === 'tag') {
    tags.add(hasFlag(rest, '-D', '-d', '--delete') ? 'delete' : 'read');
    // `-D` is `--delete --force`: either spelling drops a branch whatever it holds.
    if (
      hasFlag(rest, '-D') ||
      (hasFlag(rest, '-d', '--delete') && hasFlag(rest, '-f', '--force'))
    ) {
      tags.add('destructive');
    }
  } else if (['clone', 'fetch', 'pull', 'submodule', 'ls-remote'].includes(verb)) {
    tags.add('network');
    // `ls-remote` lists the other side's refs and changes nothing here.
    tags.add(verb === 'ls-remote' ? 'read' : 'write');
  } else if (verb === 'push') {
    tags.add('network');
    tags.add('publish');
    if (
      hasFlag(
        rest,
        '-f',
        '--force',
        '--force-with-lease',
        '--delete',
        '--mirror',
        '--prune',
        '-d',
      ) ||
      rest.some((arg) => arg.startsWith('+') || arg.startsWith(':') || arg.startsWith('--force'))
    ) {
      tags.add('destructive');
    }
    // `--delete`, an empty source (`:branch`), `--prune` and `--mirror` remove the remote's branches.
    if (
      hasFlag(rest, '-d', '--delete', '--prune', '--mirror') ||
      rest.some((arg) => /^\+?:./.test(arg))
    ) {
      tags.add('delete');
    }
  } else if (verb === 'rm') tags.add('delete');
  else if (verb === 'clean') {
    tags.add('delete');
    if (hasFlag(rest, '-f', '--force')) tags.add('destructive');
  } else if (verb === 'reset' && hasFlag(rest, '--hard')) tags.add('destructive');
  else if (discardsLocalChanges(verb, rest)) {
    tags.add('write');
    tags.add('destructive');
  } else if (
    verb === 'restore' ||
    (verb === 'stash' && ['drop', 'clear'].includes(rest[0] ?? ''))
  ) {
    tags.add('write');
    tags.add('destructive');
  } else if (verb === 'filter-branch' || verb === 'filter-repo') tags.add('destructive');
  else if (dropsUnreachableObjects(verb, rest, args)) {
    tags.add('delete');
    tags.add('destructive');
  } else if (verb !== '') {
    tags.add('write');
    if (verb === 'remote') remoteTags(rest, tags);
    if (!GIT_COMMANDS.has(verb) && !aliasGiven(args, verb)) {
      out.unknown ??= `git ${verb} is an alias from configuration or a git-${verb} program`;
    }
  }
}
