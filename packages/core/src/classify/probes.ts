import { hasFlag } from './flags.js';

/**
 * Read-only probes of toolchains and package managers: version and help
 * flags, listing and showing installed packages, printing the environment.
 * A verb ending in `*` asks a registry (`read` and `network`). Matched on the
 * program's first words (after options that take no value, or whose value is
 * attached with `=`), so `npm ls --depth 0` is a probe, `npm ls x; npm i y`
 * is two commands, and `npm --prefix ls install x` is no probe. Any other
 * form is left to the other tables.
 */
const PROBE_TABLE: Record<string, readonly string[]> = {
  node: ['-v', '--version', '-h', '--help'],
  nodejs: ['-v', '--version'],
  deno: ['-V', '--version'],
  bun: ['-v', '--version', 'pm ls', 'pm bin'],
  python: ['-V', '--version', '-h', '--help'],
  ruby: ['--version'],
  perl: ['-v', '--version'],
  php: ['-v', '--version'],
  java: ['-version', '--version'],
  javac: ['-version', '--version'],
  rustc: ['-V', '--version', '--print'],
  gcc: ['--version'],
  clang: ['--version'],
  cmake: ['--version'],
  make: ['--version'],
  npm: [
    ...['-v', '--version', 'ls', 'list', 'la', 'll', 'root', 'prefix', 'explain', 'why', 'query'],
    ...['help', 'config get', 'config list', 'view*', 'v*', 'info*', 'show*', 'outdated*'],
    ...['search*', 'ping*'],
  ],
  pnpm: ['-v', '--version', 'ls', 'list', 'll', 'why', 'root', 'bin', 'store path', 'outdated*'],
  yarn: ['-v', '--version', 'list', 'why', 'bin', 'config get', 'info*', 'outdated*'],
  pip: [
    ...['-V', '--version', 'list', 'show', 'freeze', 'check', 'help', 'inspect', 'config list'],
    ...['config get', 'cache dir', 'cache list', 'cache info', 'debug', 'index versions*'],
    'search*',
  ],
  uv: ['--version', 'pip list', 'pip show', 'pip freeze', 'pip tree', 'pip check', 'tree'],
  poetry: ['--version', 'show', 'check', 'env info', 'env list', 'about'],
  pipx: ['--version', 'list', 'environment'],
  cargo: [
    ...['-V', '--version', 'tree', 'metadata', 'locate-project', 'pkgid', 'read-manifest'],
    ...['verify-project', 'help', '--list', 'search*', 'info*'],
  ],
  rustup: ['--version', 'show', 'toolchain list', 'target list', 'component list'],
  go: ['version', 'env', 'doc', 'help'],
  gem: ['--version', 'list', 'env', 'contents', 'which', 'specification', 'search*', 'info'],
  bundle: ['--version', 'list', 'show', 'info', 'check', 'outdated*'],
  brew: [
    ...['--version', 'list', 'ls', 'info', 'config', 'deps', 'leaves', 'desc', 'commands'],
    ...['--prefix', '--cellar', '--repository', 'doctor', 'outdated*', 'search*'],
  ],
  conda: ['--version', 'list', 'info', 'env list', 'search*'],
  dotnet: ['--version', '--info', '--list-sdks', '--list-runtimes', 'list package'],
  apt: ['list', 'show', 'search', 'policy'],
  'apt-cache': ['policy', 'show', 'search', 'depends', 'rdepends', 'madison', 'showpkg'],
  dpkg: ['-l', '-L', '-s', '-S', '-p', '--list', '--listfiles', '--status', '--search'],
  rpm: ['-q', '-qa', '-qi', '-ql', '-qf', '--query'],
};

interface Probe {
  readonly parts: readonly string[];
  /** Whether the probe starts with an option (`--version`), matched on the raw words. */
  readonly option: boolean;
  readonly tags: readonly ('read' | 'network')[];
}

const PROBES = new Map<string, readonly Probe[]>(
  Object.entries(PROBE_TABLE).map(([program, probes]) => [
    program,
    probes.map((probe) => {
      const network = probe.endsWith('*');
      const parts = (network ? probe.slice(0, -1) : probe).split(' ');
      const tags: Probe['tags'] = network ? ['read', 'network'] : ['read'];
      return { parts, option: parts[0]!.startsWith('-'), tags };
    }),
  ]),
);

const SAME_AS: Record<string, string> = {
  python3: 'python',
  py: 'python',
  pip3: 'pip',
  bundler: 'bundle',
  mamba: 'conda',
  micromamba: 'conda',
  'g++': 'gcc',
  'clang++': 'clang',
};

const SAME_AS_NAMES = new Map(Object.entries(SAME_AS));

/** Options before a probe's verb that take no value (`npm -g ls`). */
const LEADING_FLAGS = new Set(['-g', '--global', '-q', '--quiet', '-s', '--silent', '--json']);

/** Options that change what a probe does: `go env -w` writes, `npm ls --json` does not. */
const WRITING_OPTIONS = /^(-w|-u|--set|--unset|--add|--remove|--edit)$/;
/**
 * Options naming a program the tool runs (`npm help --browser=CMD`), a file
 * it writes (`pip list --log FILE`) or configuration that may name either
 * (`--userconfig`, cargo's `--config`): with one, the command is no probe.
 */
const COMMAND_OPTIONS =
  /^--(browser|viewer|editor|shell|script-shell|node-options|onload-script|userconfig|globalconfig|config|log|log-file)(=|$)/;

/**
 * Options that make a local listing ask the package index too: `pip list
 * --outdated` (`-o`) and `--uptodate` compare each installed version with
 * the index's latest (pip takes a prefix of a long option, `--out`), as do
 * `uv pip list --outdated`, `uv tree --outdated` and `poetry show --latest`
 * (`-l`) or `--outdated` (`-o`).
 */
const INDEX_OPTIONS: Record<string, readonly string[]> = {
  pip: ['-o', '--outdated', '--uptodate'],
  uv: ['--outdated'],
  poetry: ['-l', '--latest', '-o', '--outdated'],
};

/**
 * What `cargo tree`, `cargo metadata` and `uv tree` do beyond reading: they
 * resolve the dependency graph, so they write the lock file (`Cargo.lock`,
 * `uv.lock`) when it is missing or stale (not with `--locked` or `--frozen`)
 * and fetch the index and what the cache lacks (not with `--offline` or
 * `--frozen`). `cargo metadata --no-deps` resolves nothing.
 */
function resolves(program: string, verb: string, args: readonly string[]): ('write' | 'network')[] {
  const resolving = program === 'cargo' ? verb === 'tree' || verb === 'metadata' : verb === 'tree';
  if (!resolving) return [];
  if (hasFlag(args, '--frozen') || (verb === 'metadata' && hasFlag(args, '--no-deps'))) return [];
  const tags: ('write' | 'network')[] = [];
  if (!hasFlag(args, '--locked')) tags.push('write');
  if (!hasFlag(args, '--offline')) tags.push('network');
  return tags;
}

/**
 * The tags of a read-only probe (`node --version`, `npm ls`, `pip show x`,
 * `cargo tree`, `go env`, `brew list`): `read`, plus `network` when it asks
 * a registry, and `write` when it may write a lock file ({@link resolves}).
 * Null when the command is no probe this table knows.
 */
export function probeTags(
  program: string,
  args: readonly string[],
): ('read' | 'write' | 'network')[] | null {
  if (args.length === 0) return null;
  const probes =
    PROBES.get(program) ??
    PROBES.get(SAME_AS_NAMES.get(program) ?? (/^python[0-9.]+$/.test(program) ? 'python' : ''));
  if (probes === undefined) return null;
  if (args.some((arg) => WRITING_OPTIONS.test(arg) || COMMAND_OPTIONS.test(arg))) return null;
  // A verb follows the options only when none of them may take it as a value
  // (`npm --prefix ls install x` installs; `go -C env run x.go` runs).
  let verb = 0;
  while (verb < args.length && (LEADING_FLAGS.has(args[verb]!) || /^--[^=]+=/.test(args[verb]!))) {
    verb++;
  }
  for (const { parts, option, tags } of probes) {
    const matches = option
      ? parts.every((part, index) => args[index] === part) &&
        args.slice(parts.length).every((arg) => !arg.startsWith('-'))
      : parts.every((part, index) => args[verb + index]?.toLowerCase() === part);
    if (!matches) continue;
    const canonical = SAME_AS_NAMES.get(program) ?? program;
    const found = new Set<'read' | 'write' | 'network'>(tags);
    if (hasFlag(args, ...(INDEX_OPTIONS[canonical] ?? []))) found.add('network');
    if ((canonical === 'cargo' || canonical === 'uv') && !option) {
      for (const tag of resolves(canonical, parts[0]!, args)) found.add(tag);
    }
    return [...found];
  }
  return null;
}
