import { redirectionTargets, type ShellSegment, splitShellSegments } from './shell-segments.js';

/** What a shell command does, in the vocabulary of structured action rules. */
export const ACTION_TAGS = [
  'read',
  'write',
  'delete',
  'destructive',
  'install_local',
  'network',
  'publish',
  'external',
  'unknown',
] as const;
export type ActionTag = (typeof ACTION_TAGS)[number];

const WRAPPERS = new Set([
  'sudo',
  'env',
  'nohup',
  'time',
  'nice',
  'command',
  'exec',
  'doas',
  'stdbuf',
]);
const READ = new Set([
  'ls',
  'cat',
  'head',
  'tail',
  'less',
  'more',
  'grep',
  'egrep',
  'rg',
  'ag',
  'wc',
  'stat',
  'file',
  'du',
  'df',
  'pwd',
  'echo',
  'printf',
  'which',
  'tree',
  'diff',
  'awk',
  'sort',
  'uniq',
  'jq',
  'cut',
  'tr',
  'basename',
  'dirname',
  'realpath',
  'whoami',
  'date',
  'true',
  'false',
  'test',
  'cd',
  'id',
  'uname',
  'ps',
  'env',
  'printenv',
  'type',
  'sha256sum',
  'md5sum',
  'cmp',
  'column',
  'nl',
  'xxd',
  'od',
  'hexdump',
  'strings',
]);
const WRITE = new Set([
  'touch',
  'mkdir',
  'cp',
  'mv',
  'tee',
  'chmod',
  'chown',
  'ln',
  'install',
  'patch',
  'tar',
  'unzip',
  'zip',
  'gzip',
  'gunzip',
]);
const DELETE = new Set(['rm', 'rmdir', 'unlink', 'shred']);
const ALWAYS_DESTRUCTIVE = new Set(['dd', 'shred', 'wipefs', 'fdisk', 'parted']);
const NETWORK = new Set([
  'curl',
  'wget',
  'ssh',
  'scp',
  'sftp',
  'rsync',
  'nc',
  'ncat',
  'telnet',
  'ftp',
  'http',
  'https',
  'ping',
  'dig',
  'nslookup',
]);
const EXTERNAL = new Set([
  'kubectl',
  'terraform',
  'helm',
  'aws',
  'gcloud',
  'az',
  'docker',
  'podman',
  'gh',
  'heroku',
  'fly',
  'vercel',
  'netlify',
  'ansible-playbook',
]);

/** Install verbs per package manager; `*` means running the manager at all installs. */
const INSTALL_VERBS: Record<string, readonly string[]> = {
  pip: ['install', 'uninstall', 'download'],
  pip3: ['install', 'uninstall', 'download'],
  uv: ['add', 'sync', 'remove', 'lock', 'run', 'tool'],
  uvx: ['*'],
  pipx: ['install', 'upgrade', 'upgrade-all', 'reinstall', 'run', 'inject'],
  poetry: ['add', 'install', 'update', 'remove', 'lock'],
  pipenv: ['install', 'update', 'sync', 'uninstall', 'lock'],
  npm: [
    'install',
    'i',
    'ci',
    'add',
    'update',
    'up',
    'upgrade',
    'uninstall',
    'remove',
    'rm',
    'rebuild',
    'exec',
    'dedupe',
  ],
  npx: ['*'],
  pnpm: [
    'install',
    'i',
    'add',
    'update',
    'up',
    'upgrade',
    'remove',
    'rm',
    'rebuild',
    'dlx',
    'exec',
    'dedupe',
    'fetch',
  ],
  yarn: ['', 'install', 'add', 'upgrade', 'up', 'remove', 'dlx', 'rebuild'],
  bun: ['install', 'i', 'add', 'update', 'remove', 'rm', 'x'],
  bunx: ['*'],
  cargo: ['install', 'add', 'update', 'remove', 'fetch'],
  go: ['install', 'get'],
  gem: ['install', 'update', 'uninstall'],
  bundle: ['', 'install', 'update', 'add'],
  conda: ['install', 'update', 'create', 'remove', 'upgrade'],
  mamba: ['install', 'update', 'create', 'remove', 'upgrade'],
  winget: ['install', 'upgrade', 'uninstall'],
  choco: ['install', 'upgrade', 'uninstall'],
  scoop: ['install', 'update', 'uninstall'],
  brew: ['install', 'upgrade', 'reinstall', 'uninstall', 'tap'],
  apt: ['install', 'upgrade', 'dist-upgrade', 'full-upgrade', 'remove', 'purge'],
  'apt-get': ['install', 'upgrade', 'dist-upgrade', 'remove', 'purge', 'build-dep'],
  dnf: ['install', 'update', 'upgrade', 'remove', 'reinstall'],
  yum: ['install', 'update', 'upgrade', 'remove', 'reinstall'],
  'install-package': ['*'],
  'install-module': ['*'],
};
const PUBLISH_VERBS: Record<string, readonly string[]> = {
  npm: ['publish', 'unpublish'],
  pnpm: ['publish'],
  yarn: ['publish', 'npm'],
  cargo: ['publish'],
  gem: ['push'],
  poetry: ['publish'],
  twine: ['upload'],
  docker: ['push'],
  podman: ['push'],
};

/** The executable and its arguments after leading assignments and wrappers such as sudo. */
function commandWords(segment: ShellSegment): string[] {
  let index = 0;
  while (index < segment.length) {
    const word = segment[index]!;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) index++;
    else if (WRAPPERS.has(word)) {
      index++;
      while (index < segment.length && segment[index]!.startsWith('-')) index++;
    } else break;
  }
  const words = segment.slice(index);
  if (words[0]) words[0] = words[0].slice(words[0].lastIndexOf('/') + 1).toLowerCase();
  if ((words[0] === 'python' || words[0] === 'python3') && words[1] === '-m' && words[2])
    return words.slice(2);
  if (words[0] === 'dotnet' && words[1] === 'tool') return ['dotnet-tool', ...words.slice(2)];
  return words;
}

function firstVerb(args: readonly string[]): string {
  return args.find((word) => !word.startsWith('-')) ?? '';
}

function hasFlag(args: readonly string[], ...flags: string[]): boolean {
  return args.some(
    (arg) =>
      flags.includes(arg) ||
      (/^-[a-zA-Z]+$/.test(arg) &&
        flags.some((flag) => flag.length === 2 && arg.includes(flag[1]!))),
  );
}

/** The tags of one simple command. */
function classifySegment(segment: ShellSegment): Set<ActionTag> {
  const tags = new Set<ActionTag>();
  const [program = '', ...args] = commandWords(segment);
  const verb = firstVerb(args);
  const installVerbs =
    INSTALL_VERBS[program] ??
    (program === 'dotnet-tool' ? ['install', 'update', 'uninstall'] : undefined);
  if (installVerbs && (installVerbs.includes('*') || installVerbs.includes(verb))) {
    tags.add('install_local');
    tags.add('network');
  }
  if (PUBLISH_VERBS[program]?.includes(verb)) {
    tags.add('publish');
    tags.add('network');
  }
  if (program === 'git') classifyGit(verb, args, tags);
  else if (READ.has(program)) tags.add('read');
  else if (DELETE.has(program)) {
    tags.add('delete');
    if (
      ALWAYS_DESTRUCTIVE.has(program) ||
      hasFlag(args, '-r', '-R', '-f', '--recursive', '--force')
    )
      tags.add('destructive');
  } else if (ALWAYS_DESTRUCTIVE.has(program) || program.startsWith('mkfs')) tags.add('destructive');
  else if (WRITE.has(program)) tags.add('write');
  else if (program === 'sed' || program === 'perl')
    tags.add(hasFlag(args, '-i') || args.some((a) => a.startsWith('-i')) ? 'write' : 'read');
  else if (program === 'find') {
    tags.add('read');
    if (args.includes('-delete')) tags.add('delete');
    if (args.includes('-exec') || args.includes('-execdir')) tags.add('unknown');
  } else if (NETWORK.has(program)) tags.add('network');
  else if (EXTERNAL.has(program)) tags.add('external');
  if (program === 'truncate' || (program === 'chmod' && hasFlag(args, '-R')))
    tags.add('destructive');
  if (tags.size === 0) tags.add('unknown');
  return tags;
}

function classifyGit(verb: string, args: readonly string[], tags: Set<ActionTag>): void {
  if (
    [
      'status',
      'log',
      'diff',
      'show',
      'blame',
      'grep',
      'ls-files',
      'rev-parse',
      'describe',
      'shortlog',
    ].includes(verb)
  )
    tags.add('read');
  else if (verb === 'branch') tags.add(hasFlag(args, '-D', '-d', '--delete') ? 'delete' : 'read');
  else if (['clone', 'fetch', 'pull'].includes(verb)) {
    tags.add('network');
    tags.add('write');
  } else if (verb === 'push') {
    tags.add('network');
    tags.add('publish');
    if (hasFlag(args, '-f', '--force', '--force-with-lease') || args.some((a) => a.startsWith('+')))
      tags.add('destructive');
  } else if (verb === 'rm') tags.add('delete');
  else if (verb === 'clean') {
    tags.add('delete');
    if (hasFlag(args, '-f', '--force')) tags.add('destructive');
  } else if (verb === 'reset') tags.add(args.includes('--hard') ? 'destructive' : 'write');
  else if (verb !== '') tags.add('write');
  else tags.add('unknown');
}

/**
 * Classifies a shell command line into action tags: each unquoted simple
 * command is classified by its leading executable and direct verb; a
 * redirection to a file adds `write`. Commands it cannot read (scripts,
 * `eval`, `bash -c`, unknown programs) are `unknown`. Not a shell parser:
 * hidden behaviour behind aliases or scripts is not recognised.
 */
export function classifyShellCommand(command: string): ActionTag[] {
  const tags = new Set<ActionTag>();
  for (const segment of splitShellSegments(command)) {
    for (const tag of classifySegment(segment)) tags.add(tag);
  }
  if (redirectionTargets(command).length > 0) tags.add('write');
  if (tags.size === 0) tags.add('unknown');
  return ACTION_TAGS.filter((tag) => tags.has(tag));
}
