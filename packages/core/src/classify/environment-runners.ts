/**
 * Environment managers' execution verbs (`poetry run`, `bundle exec`,
 * `conda run`, `mise exec`, `rbenv exec`, `direnv exec`...): they set up an
 * environment and run the command after their options. The command is read
 * like any other and keeps its tags; it is `unknown` as well, since the
 * environment puts its own programs first on the PATH (a `rm` there may be
 * anything), runs its activation code (`.envrc`, conda's activate.d) or
 * names a script of the project's configuration (`poetry run NAME`).
 */
import type { ShellWord } from './lexed-line.js';
import type { ActionTag } from './tags.js';
import type { Unwrapped } from './unwrapped.js';
import { plainFrom } from './word-text.js';

/** The options of one execution verb, spelled with their dashes. */
interface EnvironmentRunner {
  /** Options taking a value, given apart (`-n env`), after `=`, or attached to a short one. */
  readonly valued: readonly string[];
  readonly flags: readonly string[];
  /** Options that make it run nothing (`--help`, `pdm run --list`). */
  readonly lookupOnly?: readonly string[];
  /** Options whose value is a command line run through a shell (`mise exec -c 'CMD'`). */
  readonly lineOptions?: readonly string[];
  /** Operands before the command (`direnv exec DIR`). */
  readonly leadingOperands?: number;
  /** Its operands before `--` are not the command (`mise exec node@20 -- CMD`). */
  readonly commandAfterDashes?: true;
  /** It installs what the environment lacks before running (`hatch run`, `mise exec`). */
  readonly installs?: true;
}

const VERBOSITY = ['-v', '--verbose', '-q', '--quiet'];
const HELP = ['-h', '--help'];
/** A version manager's `exec`: its shims' version of the program runs. */
const SHIM_EXEC: EnvironmentRunner = { valued: [], flags: [], lookupOnly: HELP };
const POETRY: EnvironmentRunner = {
  valued: ['-P', '--project', '-C', '--directory'],
  flags: [
    ...VERBOSITY,
    ...['-vv', '-vvv', '-n', '--no-interaction', '--ansi', '--no-ansi', '--no-plugins'],
    '--no-cache',
  ],
  lookupOnly: [...HELP, '-V', '--version'],
};
const CONDA: EnvironmentRunner = {
  valued: ['-n', '--name', '-p', '--prefix', '--cwd', '-r', '--root-prefix'],
  flags: [
    ...VERBOSITY,
    ...['--no-capture-output', '--live-stream', '--debug-wrapper-scripts', '--clean-env'],
    ...['-d', '--detach', '--no-capture'],
  ],
  lookupOnly: HELP,
};
const MISE: EnvironmentRunner = {
  valued: ['-C', '--cd', '-j', '--jobs', '-E', '--env'],
  flags: [...VERBOSITY, '--raw', '--fresh-env', '--no-prepare', '-y', '--yes'],
  lookupOnly: HELP,
  lineOptions: ['-c', '--command'],
  commandAfterDashes: true,
  installs: true,
};
const SECRETS: EnvironmentRunner = {
  valued: [
    ...['--env-file', '-f', '--env', '-e', '--project', '-p', '--config', '-c', '--token'],
    ...['--path', '--name-transformer', '--account', '--fallback', '--projectId'],
  ],
  flags: ['--no-masking', '--watch', '--silent', '--quiet', '--overload', '--strict'],
  lookupOnly: HELP,
};
/** doppler's and infisical's `run --command LINE`. */
const SECRETS_WITH_LINE: EnvironmentRunner = { ...SECRETS, lineOptions: ['--command'] };

const BUNDLE_EXEC: EnvironmentRunner = {
  valued: ['--gemfile'],
  flags: ['--keep-file-descriptors', '--verbose', '--no-color'],
  lookupOnly: HELP,
};

/** Each execution verb, as the program and its verb. */
const RUNNERS: Readonly<Record<string, EnvironmentRunner>> = {
  'direnv exec': { valued: [], flags: [], leadingOperands: 1, lookupOnly: HELP },
  'poetry run': POETRY,
  'bundler exec': BUNDLE_EXEC,
  'bundle exec': BUNDLE_EXEC,
  'hatch run': {
    valued: ['-e', '--env', '-p', '--project', '--data-dir', '--cache-dir', '--config'],
    flags: [...VERBOSITY, '--color', '--no-color', '--interactive', '--no-interactive'],
    lookupOnly: [...HELP, '--version'],
    installs: true,
  },
  'pdm run': {
    valued: ['-p', '--project', '--venv'],
    flags: [...VERBOSITY, '-g', '--global', '-s', '--site-packages', '--recreate'],
    lookupOnly: [...HELP, '-l', '--list', '-j', '--json'],
  },
  'pipenv run': { valued: ['--python'], flags: VERBOSITY, lookupOnly: HELP },
  'rye run': { valued: ['--pyproject'], flags: VERBOSITY, lookupOnly: [...HELP, '-l', '--list'] },
  'conda run': CONDA,
  'mamba run': CONDA,
  'micromamba run': CONDA,
  'mise exec': MISE,
  'mise x': MISE,
  'rtx exec': MISE,
  'rtx x': MISE,
  'asdf exec': SHIM_EXEC,
  'rbenv exec': SHIM_EXEC,
  'pyenv exec': SHIM_EXEC,
  'nodenv exec': SHIM_EXEC,
  'goenv exec': SHIM_EXEC,
  'jenv exec': SHIM_EXEC,
  'nvm exec': { valued: [], flags: ['--silent', '--lts'], lookupOnly: HELP },
  'op run': { ...SECRETS, commandAfterDashes: true },
  'doppler run': SECRETS_WITH_LINE,
  'infisical run': SECRETS_WITH_LINE,
  'dotenvx run': SECRETS,
};

/** Programs some verb starts with. */
export const ENVIRONMENT_PROGRAMS: readonly string[] = [
  ...new Set(Object.keys(RUNNERS).map((key) => key.split(' ')[0]!)),
];
const PROGRAMS = new Set(ENVIRONMENT_PROGRAMS);

/** Options a manager takes before its verb whose value is a separate word (`poetry -C app run`). */
const LEADING_VALUED = new Set(['-C', '--directory', '-P', '--project', '-p', '-e', '--env']);

/** A node version `nvm exec` takes before the command (`18`, `v20.1`, `lts/iron`, `node`). */
const NODE_VERSION = /^(v?\d[\w.]*|node|stable|unstable|iojs|system|default|lts\/.*)$/;

/** Whether `text` is one of `options`, alone or with its value after `=`. */
function named(text: string, options: readonly string[] | undefined): boolean {
  if (options === undefined) return false;
  return options.includes(text) || (text.includes('=') && options.includes(text.split('=')[0]!));
}

/** The verb's grammar and the index after it, or null when the words start no execution verb. */
function verbAt(program: string, words: readonly ShellWord[], from: number) {
  let index = from;
  while (index < words.length && words[index]!.text.startsWith('-')) {
    index += LEADING_VALUED.has(words[index]!.text) ? 2 : 1;
  }
  const key = `${program} ${words[index]?.text ?? ''}`;
  if (!Object.hasOwn(RUNNERS, key)) return null;
  // An option before the verb that it does not list may have taken a value (read apart, unknown).
  return { runner: RUNNERS[key]!, after: index + 1 };
}

/**
 * For an environment manager's execution verb, what it runs: the words of
 * its command (with `unknown`, and `install_local` and `network` for those
 * that install), or the command line of `-c`/`--command`; null for any other
 * program or verb. An option the verb does not list may take the next word
 * as its value: the command is read from the word after it, as for `sudo`.
 */
export function environmentRunner(
  program: string,
  words: readonly ShellWord[],
  from: number,
): Unwrapped | null {
  if (!PROGRAMS.has(program)) return null;
  const found = verbAt(program, words, from);
  if (found === null) return null;
  const { runner, after } = found;
  const tags: ActionTag[] = runner.installs ? ['install_local', 'network', 'unknown'] : ['unknown'];
  let index = after;
  let dashes = false;
  while (index < words.length) {
    const text = words[index]!.text;
    if (text === '--') {
      dashes = true;
      index++;
      break;
    }
    if (!text.startsWith('-') || text === '-') break;
    if (named(text, runner.lookupOnly)) return { kind: 'no_command', tag: 'read' };
    if (named(text, runner.lineOptions)) {
      const value = text.includes('=') ? text.slice(text.indexOf('=') + 1) : words[index + 1]?.text;
      const dynamic = words.slice(index, index + 2).some((word) => word.dynamic);
      return { kind: 'line', line: value ?? '', dynamic, tags };
    }
    const separate = runner.valued.includes(text);
    index += separate ? 2 : 1;
  }
  if (runner.commandAfterDashes && !dashes) {
    // Without `--` its operands name tools, and it starts a shell: read them as the command too.
    const next = words.findIndex((word, at) => at >= index && word.text === '--');
    if (next >= 0) index = next + 1;
  }
  if (program === 'nvm' && NODE_VERSION.test(words[index]?.text ?? '')) index++;
  index += runner.leadingOperands ?? 0;
  if (program === 'hatch' && index < words.length) return hatchCommand(words, index, tags);
  return { kind: 'words', from: Math.min(index, words.length), tags };
}

/**
 * `hatch run [ENV:]CMD ARGS...` runs CMD in environment ENV (the prefix is
 * dropped) through a shell: the words are read as given, and joined as the
 * shell would read them (`hatch run 'ls; rm -rf x'` runs both).
 */
function hatchCommand(words: readonly ShellWord[], index: number, tags: ActionTag[]): Unwrapped {
  const first = words[index]!;
  // Plain words read the same through a shell: read in place, so `hatch run hatch run ...` stays linear.
  if (!first.text.includes(':') && plainFrom(words) <= index)
    return { kind: 'words', from: index, tags };
  const texts = [first.text.slice(first.text.indexOf(':') + 1)];
  for (const word of words.slice(index + 1)) texts.push(word.text);
  const joined = texts.join(' ');
  const quotedBack = texts.map(quoted).join(' ');
  const line = quotedBack === joined ? joined : `${quotedBack}\n${joined}`;
  return { kind: 'line', line, dynamic: words.slice(index).some((word) => word.dynamic), tags };
}

/** A word quoted back for the shell to read as that one word. */
function quoted(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}
