/**
 * Package managers' execution verbs (`npx`, `npm exec`, `uv run`, `pnpm dlx`,
 * `bunx`...): they fetch or set up dependencies and then run a command,
 * which is read like any other. What a fetched package's own program does
 * is what `install_local` says ("runs fetched dependencies"), but a known
 * program (`uv run rm -rf x`) or a command line (`npx -c 'rm -rf x'`) keeps
 * its tags.
 */
import type { ShellWord } from './lexed-line.js';
import type { ActionTag } from './tags.js';
import type { Unwrapped } from './unwrapped.js';
import { splitsBefore } from './word-text.js';

/** The options of one execution verb. */
interface RunnerGrammar {
  /** Options taking a value, given apart (`--package x`) or after `=`. */
  readonly valued: readonly string[];
  readonly flags: readonly string[];
  /** Options whose value is a command line run through a shell (`npx -c 'cmd'`). */
  readonly lineOptions?: readonly string[];
  /** Flags that make the command's words run as one shell line (`pnpm exec -c`). */
  readonly shellMode?: readonly string[];
  /** Options that make it run nothing (`--help`, `--version`). */
  readonly lookupOnly?: readonly string[];
  /** Options whose value changes what runs the command (`--script-shell`): unknown. */
  readonly loadsCode?: readonly string[];
  /**
   * It fetches or installs what it runs (`install_local` and `network`);
   * otherwise it runs a project's installed programs first (`unknown`).
   */
  readonly fetches: boolean;
}

const NPM_FLAGS = [
  ...['-y', '--yes', '--no', '--no-yes', '-q', '--quiet', '-s', '--silent', '-d', '--verbose'],
  ...['--ws', '--workspaces', '--include-workspace-root', '--offline', '--prefer-offline'],
  ...['--prefer-online', '-g', '--global', '--foreground-scripts', '--ignore-scripts'],
  ...['--no-audit', '--no-fund', '--legacy-peer-deps', '--force', '-f'],
];
const NPM: RunnerGrammar = {
  valued: [
    ...['-p', '--package', '--prefix', '--registry', '--userconfig', '--cache', '-w'],
    ...['--workspace', '--loglevel'],
  ],
  flags: NPM_FLAGS,
  lineOptions: ['-c', '--call'],
  lookupOnly: ['-h', '--help', '-v', '--version'],
  loadsCode: ['--script-shell', '--node-options'],
  fetches: true,
};

const UV_VALUED = [
  ...['--with', '--with-editable', '--with-requirements', '--python', '-p', '--index'],
  ...['--default-index', '--index-url', '-i', '--extra-index-url', '--find-links', '-f'],
  ...['--upgrade-package', '-P', '--reinstall-package', '--refresh-package', '--resolution'],
  ...['--prerelease', '--fork-strategy', '--index-strategy', '--keyring-provider'],
  ...['--exclude-newer', '--link-mode', '--config-setting', '-C', '--no-build-isolation-package'],
  ...['--no-build-package', '--no-binary-package', '--python-platform', '--cache-dir'],
  ...['--directory', '--project', '--config-file', '--color', '--allow-insecure-host'],
  ...['--constraints', '--overrides', '--build-constraints', '--env-file'],
];
const UV_FLAGS = [
  ...['-q', '--quiet', '-v', '--verbose', '--offline', '--no-cache', '-n', '--native-tls'],
  ...['--no-progress', '--no-config', '--preview', '--no-python-downloads', '--managed-python'],
  ...['--no-managed-python', '--isolated', '-U', '--upgrade', '--reinstall', '--refresh'],
  ...['--no-build-isolation', '--no-build', '--no-binary', '--compile-bytecode', '--no-sources'],
  ...['--no-env-file'],
];
const UV_RUN: RunnerGrammar = {
  valued: [
    ...UV_VALUED,
    ...['--extra', '--no-extra', '--group', '--no-group', '--only-group', '--package'],
  ],
  flags: [
    ...UV_FLAGS,
    ...['--frozen', '--locked', '--no-sync', '--all-extras', '--no-dev', '--dev', '--only-dev'],
    ...['--no-project', '--exact', '--inexact', '--active', '--no-active', '--all-packages'],
    ...['--all-groups', '--no-default-groups', '--no-editable', '-s', '--script', '-m'],
    ...['--module', '--gui-script', '--no-install-project', '--no-install-workspace'],
  ],
  lookupOnly: ['-h', '--help', '-V', '--version'],
  fetches: true,
};
const UV_TOOL_RUN: RunnerGrammar = {
  valued: [...UV_VALUED, '--from'],
  flags: UV_FLAGS,
  lookupOnly: ['-h', '--help', '-V', '--version'],
  fetches: true,
};
const PNPM_DLX: RunnerGrammar = {
  valued: ['--package', '--allow-build'],
  flags: ['-s', '--silent', '--reporter=silent'],
  shellMode: ['-c', '--shell-mode'],
  lookupOnly: ['-h', '--help'],
  fetches: true,
};
const PNPM_EXEC: RunnerGrammar = {
  valued: ['--resume-from', '--report-summary'],
  flags: [
    '-r',
    '--recursive',
    '--parallel',
    '--no-bail',
    '--workspace-root',
    '--no-reporter-hide-prefix',
  ],
  shellMode: ['-c', '--shell-mode'],
  lookupOnly: ['-h', '--help'],
  fetches: false,
};
const YARN_DLX: RunnerGrammar = {
  valued: ['-p', '--package'],
  flags: ['-q', '--quiet'],
  lookupOnly: ['-h', '--help'],
  fetches: true,
};
const BUNX: RunnerGrammar = {
  valued: ['-p', '--package'],
  flags: ['--bun', '--silent', '--verbose', '--no-install'],
  lookupOnly: ['-h', '--help'],
  fetches: true,
};
const PIPX_RUN: RunnerGrammar = {
  valued: ['--spec', '--python', '--index-url', '-i', '--pip-args', '--backend'],
  flags: ['--no-cache', '--path', '--pypackages', '-v', '--verbose', '-q', '--quiet'],
  lookupOnly: ['-h', '--help'],
  fetches: true,
};
const DOTNET_TOOL_RUN: RunnerGrammar = {
  valued: [],
  flags: ['--allow-roll-forward'],
  lookupOnly: ['-h', '--help'],
  fetches: true,
};

/** Each execution verb, as the program and its verb words. */
const RUNNERS: Readonly<Record<string, RunnerGrammar>> = {
  npx: NPM,
  'npm exec': NPM,
  'npm x': NPM,
  'uv run': UV_RUN,
  'uv tool run': UV_TOOL_RUN,
  uvx: UV_TOOL_RUN,
  'pnpm dlx': PNPM_DLX,
  pnpx: PNPM_DLX,
  'pnpm exec': PNPM_EXEC,
  'yarn dlx': YARN_DLX,
  'yarn exec': { valued: [], flags: [], fetches: false },
  bunx: BUNX,
  'bun x': BUNX,
  'pipx run': PIPX_RUN,
  'dotnet tool run': DOTNET_TOOL_RUN,
};

/** Programs some runner starts with. */
const RUNNER_PROGRAMS = new Set(Object.keys(RUNNERS).map((key) => key.split(' ')[0]!));

/** Options a manager takes before its verb whose value is a separate word (`pnpm -C dir exec`). */
const LEADING_VALUED = new Set([
  ...['-C', '--dir', '--prefix', '--filter', '-F', '--cwd', '-w', '--workspace', '--directory'],
  ...['--project', '--cache-dir', '--config-file', '--color', '--registry', '--userconfig'],
  ...['--python', '-p', '--loglevel'],
]);

/** The verb's grammar and the index after it, or null when the words start no execution verb. */
function runnerAt(
  program: string,
  words: readonly ShellWord[],
  from: number,
): { grammar: RunnerGrammar; after: number } | null {
  const alone = RUNNERS[program];
  if (alone !== undefined && Object.hasOwn(RUNNERS, program))
    return { grammar: alone, after: from };
  let index = from;
  // Options before the verb (`npm --prefix x exec`): a separate value is skipped.
  while (index < words.length && words[index]!.text.startsWith('-')) {
    const text = words[index]!.text;
    index += LEADING_VALUED.has(text) ? 2 : 1;
  }
  let key = program;
  for (let at = index; at < words.length && at < index + 2; at++) {
    key = `${key} ${words[at]!.text.toLowerCase()}`;
    if (Object.hasOwn(RUNNERS, key)) return { grammar: RUNNERS[key]!, after: at + 1 };
  }
  return null;
}

/** Whether `text` is one of `options`, alone or with its value after `=`. */
function named(text: string, options: readonly string[] | undefined): boolean {
  if (options === undefined) return false;
  return options.includes(text) || options.includes(text.split('=')[0]!);
}

/**
 * For a package manager's execution verb (`npx`, `npm exec`, `uv run`,
 * `uvx`, `pnpm dlx`, `pnpm exec`, `yarn dlx`, `bunx`, `pipx run`, `dotnet
 * tool run`), what it runs: the words of its command, or the command line
 * of `-c`; null for any other program or verb. An option the grammar does
 * not know may take the next word as its value: the command is then unknown.
 */
export function packageRunner(
  program: string,
  words: readonly ShellWord[],
  from: number,
): Unwrapped | null {
  if (!RUNNER_PROGRAMS.has(program)) return null;
  const found = runnerAt(program, words, from);
  if (found === null) return null;
  const { grammar } = found;
  // `pnpm exec NAME` looks in node_modules/.bin first: NAME may be any dependency's program.
  const tags: ActionTag[] = grammar.fetches ? ['install_local', 'network'] : ['unknown'];
  let shell = false;
  let index = found.after;
  while (index < words.length) {
    const text = words[index]!.text;
    if (text === '--') {
      index++;
      break;
    }
    if (!text.startsWith('-') || text === '-') break;
    if (named(text, grammar.lookupOnly)) return { kind: 'no_command', tag: 'read' };
    const attached = text.includes('=') ? text.slice(text.indexOf('=') + 1) : undefined;
    if (named(text, grammar.lineOptions)) {
      const value = attached ?? words[index + 1];
      const line = typeof value === 'string' ? value : (value?.text ?? '');
      const dynamic = typeof value === 'string' ? words[index]!.dynamic : !!value?.dynamic;
      if (splitsBefore(words, found.after, index)) tags.push('unknown');
      return { kind: 'line', line, dynamic, tags };
    }
    if (named(text, grammar.loadsCode) && !tags.includes('unknown')) tags.push('unknown');
    if (named(text, grammar.shellMode)) shell = true;
    else if (
      !named(text, grammar.valued) &&
      !named(text, grammar.flags) &&
      !named(text, grammar.loadsCode) &&
      !tags.includes('unknown')
    ) {
      tags.push('unknown');
    }
    const separate =
      attached === undefined && (named(text, grammar.valued) || named(text, grammar.loadsCode));
    index += separate ? 2 : 1;
  }
  if (splitsBefore(words, found.after, index) && !tags.includes('unknown')) tags.push('unknown');
  if (index >= words.length) {
    // Nothing to run is shown: words an xargs before it adds would be the command.
    if (!tags.includes('unknown')) tags.push('unknown');
    return { kind: 'words', from: words.length, tags };
  }
  if (shell) {
    const rest = words.slice(index);
    return {
      kind: 'line',
      line: rest.map((word) => word.text).join(' '),
      dynamic: rest.some((word) => word.dynamic),
      tags,
    };
  }
  return { kind: 'words', from: index, tags, ...(grammar.fetches ? { runsPackage: true } : {}) };
}

/**
 * Packages' programs that run a script or commands they are given (`npx tsx
 * build.ts`, `npx nodemon --exec CMD`): what they run is not what
 * `install_local` says, so their command stays `unknown`.
 */
const RUNS_GIVEN_CODE = new Set([
  ...['nodemon', 'ts-node', 'ts-node-esm', 'tsx', 'vite-node', 'zx', 'esno', 'esr', 'jiti'],
  ...['npm-run-all', 'npm-run-all2', 'run-s', 'run-p', 'lint-staged', 'husky', 'wireit'],
]);

/** A script file a runner runs (`uv run build.py`): its code is not read. */
const SCRIPT_FILE = /\.(py|pyw|js|mjs|cjs|ts|mts|cts|sh|bash|zsh|rb|pl|php|lua)$/i;

/** Whether a fetched package's program (`npx NAME`) is read as `install_local` says, with no `unknown`. */
export function runsOnlyItself(program: string): boolean {
  return !RUNS_GIVEN_CODE.has(program) && !SCRIPT_FILE.test(program);
}
