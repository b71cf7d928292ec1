/**
 * Install, publish and execution verbs of the package managers and
 * environment provisioners of spec 004. A verb listed here installs,
 * changes or fetches dependencies (`install_local`); `*` means that running
 * the program at all does (`npx`, `uvx`); `''` means the bare program does
 * (`yarn`, `bundle`). Not a complete grammar of each manager: an unlisted
 * verb is left to the other tables (usually `unknown`).
 */
const INSTALL_VERBS: Record<string, readonly string[]> = {
  pip: ['install', 'download', 'uninstall', 'wheel'],
  uv: ['add', 'remove', 'sync', 'lock', 'run', 'tool install', 'tool run', 'tool upgrade'],
  'uv pip': ['install', 'sync', 'uninstall', 'compile'],
  'uv python': ['install', 'upgrade'],
  'uv self': ['update'],
  uvx: ['*'],
  pipx: ['install', 'upgrade', 'upgrade-all', 'reinstall', 'reinstall-all', 'run', 'inject'],
  poetry: ['add', 'install', 'update', 'remove', 'lock', 'sync'],
  'poetry self': ['add', 'update', 'install'],
  pipenv: ['install', 'update', 'upgrade', 'sync', 'uninstall', 'lock'],
  npm: [
    ...['install', 'i', 'in', 'ins', 'inst', 'insta', 'instal', 'isnt', 'isnta', 'isntal'],
    ...['add', 'ci', 'clean-install', 'ic', 'install-clean', 'install-test', 'it', 'cit'],
    ...['update', 'up', 'upgrade', 'udpate', 'rebuild', 'rb', 'exec', 'x', 'dedupe', 'ddp'],
    ...['uninstall', 'un', 'remove', 'rm', 'r', 'unlink', 'link', 'ln', 'create', 'init'],
    'audit fix',
  ],
  npx: ['*'],
  pnpm: [
    ...['install', 'i', 'add', 'update', 'up', 'upgrade', 'remove', 'rm', 'un', 'uninstall'],
    ...['rebuild', 'rb', 'dlx', 'create', 'dedupe', 'fetch', 'import', 'link', 'ln', 'unlink'],
    ...['install-test', 'it', 'audit --fix', 'audit fix'],
  ],
  yarn: [
    ...['', 'install', 'add', 'upgrade', 'upgrade-interactive', 'up', 'remove', 'dlx'],
    ...['create', 'rebuild', 'link', 'unlink', 'import', 'dedupe', 'audit fix', 'npm audit fix'],
  ],
  bun: ['install', 'i', 'add', 'a', 'update', 'remove', 'rm', 'x', 'create', 'upgrade', 'link'],
  bunx: ['*'],
  cargo: ['install', 'add', 'update', 'remove', 'rm', 'fetch', 'uninstall', 'binstall'],
  go: ['install', 'get', 'mod download', 'mod tidy', 'mod vendor', 'work sync'],
  gem: ['install', 'i', 'update', 'uninstall', 'fetch'],
  bundle: ['', 'install', 'update', 'add', 'remove', 'lock'],
  'dotnet tool': ['install', 'update', 'uninstall', 'restore', 'run'],
  dotnet: ['add package', 'restore', 'workload install', 'workload update', 'remove package'],
  conda: ['install', 'update', 'upgrade', 'create', 'remove', 'uninstall', 'env create'],
  'conda env': ['create', 'update'],
  winget: ['install', 'add', 'upgrade', 'update', 'uninstall', 'remove', 'import'],
  choco: ['install', 'upgrade', 'update', 'uninstall'],
  scoop: ['install', 'update', 'uninstall', 'reset'],
  brew: ['install', 'upgrade', 'reinstall', 'uninstall', 'remove', 'rm', 'tap', 'bundle'],
  apt: ['install', 'upgrade', 'dist-upgrade', 'full-upgrade', 'remove', 'purge', 'autoremove'],
  'apt-get': [
    ...['install', 'upgrade', 'dist-upgrade', 'full-upgrade', 'remove', 'purge', 'autoremove'],
    ...['build-dep', 'reinstall', 'source'],
  ],
  dnf: ['install', 'update', 'upgrade', 'remove', 'erase', 'reinstall', 'downgrade'],
  apk: ['add', 'del', 'upgrade', 'fix'],
  snap: ['install', 'refresh', 'remove'],
  flatpak: ['install', 'update', 'uninstall'],
  'install-package': ['*'],
  'install-module': ['*'],
  'install-script': ['*'],
  'update-module': ['*'],
  'install-psresource': ['*'],
  'update-psresource': ['*'],
};

/** Same grammar under another name. */
const SAME_AS: Record<string, string> = {
  pip3: 'pip',
  bundler: 'bundle',
  mamba: 'conda',
  micromamba: 'conda',
  yum: 'dnf',
  'choco.exe': 'choco',
  aptitude: 'apt-get',
};

const PUBLISH_VERBS: Record<string, readonly string[]> = {
  npm: ['publish', 'unpublish', 'deprecate', 'dist-tag'],
  pnpm: ['publish'],
  yarn: ['publish', 'npm publish'],
  bun: ['publish'],
  cargo: ['publish', 'yank'],
  gem: ['push', 'yank'],
  poetry: ['publish'],
  uv: ['publish'],
  twine: ['upload'],
  flit: ['publish'],
  hatch: ['publish'],
  vsce: ['publish'],
  docker: ['push'],
  'docker image': ['push'],
  podman: ['push'],
  'podman image': ['push'],
  'dotnet nuget': ['push'],
  helm: ['push'],
};

/** Options that take a separate value, so the value is not read as the verb. */
const OPTIONS_WITH_VALUE = new Set([
  ...['-C', '--prefix', '--dir', '--cwd', '-w', '--workspace', '--filter', '-F', '--cache'],
  ...['--registry', '--userconfig', '--manifest-path', '--directory', '--project', '-p'],
  ...['--python', '--index-url', '-i', '--proxy', '--config-file', '--env', '-n', '--name'],
  ...['-c', '--channel', '--target', '-t', '--modfile', '--source'],
]);

/** The non-option words of `args`, skipping the values of options that take one. */
function operands(args: readonly string[]): string[] {
  const words: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === '--') {
      words.push(...args.slice(index + 1));
      break;
    }
    if (arg.startsWith('-')) {
      if (OPTIONS_WITH_VALUE.has(arg) && !arg.includes('=')) index++;
      continue;
    }
    words.push(arg);
  }
  return words;
}

function verbMatches(
  verbs: readonly string[],
  operandWords: readonly string[],
  args: readonly string[],
): boolean {
  for (const verb of verbs) {
    if (verb === '*') return true;
    if (verb === '') {
      if (operandWords.length === 0) return true;
      continue;
    }
    const parts = verb.split(' ');
    // `audit --fix` is matched on the raw words: the option is the verb's second part.
    const words = parts.some((part) => part.startsWith('-'))
      ? args.filter((a) => a !== '')
      : operandWords;
    if (parts.every((part, offset) => words[offset]?.toLowerCase() === part)) return true;
  }
  return false;
}

function lookUp(
  table: Record<string, readonly string[]>,
  program: string,
  args: readonly string[],
) {
  const words = operands(args);
  const first = words[0]?.toLowerCase();
  const name = SAME_AS[program] ?? program;
  const nestedKey =
    first === undefined ? undefined : (SAME_AS[`${name} ${first}`] ?? `${name} ${first}`);
  if (nestedKey !== undefined && table[nestedKey]) {
    const rest = args.slice(args.findIndex((arg) => arg.toLowerCase() === first) + 1);
    if (verbMatches(table[nestedKey]!, operands(rest), rest)) return true;
  }
  const verbs = table[name];
  return verbs !== undefined && verbMatches(verbs, words, args);
}

/**
 * Whether a command installs, changes or runs fetched dependencies: the
 * program (basename, lowercase) and its arguments after wrappers.
 */
export function installsPackages(program: string, args: readonly string[]): boolean {
  if (program === 'go' && operands(args)[0] === 'run') {
    return operands(args)
      .slice(1)
      .some((arg) => arg.includes('@'));
  }
  return lookUp(INSTALL_VERBS, program, args);
}

/** Whether a command publishes a package or an image to a registry. */
export function publishesPackages(program: string, args: readonly string[]): boolean {
  return lookUp(PUBLISH_VERBS, program, args);
}

/** Verbs that take a published version back from everyone who depends on it. */
const WITHDRAW_VERBS: Record<string, readonly string[]> = {
  npm: ['unpublish'],
  cargo: ['yank'],
  gem: ['yank'],
  'dotnet nuget': ['delete'],
};

/** Whether a command withdraws a published package version (`npm unpublish`, `cargo yank`). */
export function withdrawsPackages(program: string, args: readonly string[]): boolean {
  return lookUp(WITHDRAW_VERBS, program, args);
}

/** Whether the program is a package manager this module knows (for reporting). */
export function isPackageManager(program: string): boolean {
  const name = SAME_AS[program] ?? program;
  return INSTALL_VERBS[name] !== undefined || PUBLISH_VERBS[name] !== undefined;
}
