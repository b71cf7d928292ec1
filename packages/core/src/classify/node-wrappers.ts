/**
 * Wrappers from the JavaScript ecosystem that run the command after them,
 * often through `npx`: `cross-env NAME=value CMD`, `cross-env-shell 'CMD'`,
 * `dotenv [-e FILE] -- CMD` and `env-cmd [-f FILE] CMD` (which load
 * variables from a file the classifier does not read, so the command is
 * `unknown` as well), and `concurrently 'CMD' 'CMD'`.
 */
import type { ShellWord } from './lexed-line.js';
import type { Unwrapped } from './unwrapped.js';

/** Options of dotenv-cli and env-cmd that take a value given apart. */
const VALUED: Readonly<Record<string, ReadonlySet<string>>> = {
  dotenv: new Set(['-e', '-v', '-p', '-c']),
  'env-cmd': new Set(['-f', '--file', '-e', '--environments', '-r', '--rc-file']),
};

/** Programs that run, beside their own command, what a file of variables may change. */
const LOADS_VARIABLES = new Set(Object.keys(VALUED));

/** The options naming the file of variables each loader reads, `.env` of its directory without one. */
const FILE_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  dotenv: ['-e'],
  'env-cmd': ['-f', '--file'],
  dotenvx: ['-f', '--env-file'],
};

/**
 * The file of variables a loader reads when its own words (`own`, after the program) name none:
 * `.env` of the working directory for `dotenv -- CMD`, `env-cmd CMD` and `dotenvx run -- CMD`.
 */
export function defaultVariableFiles(program: string, own: readonly string[]): string[] {
  const options = FILE_OPTIONS[program];
  if (options === undefined) return [];
  const named = own.some((word) =>
    options.some(
      (option) =>
        word === option || word.startsWith(option.startsWith('--') ? `${option}=` : option),
    ),
  );
  return named ? [] : ['.env'];
}

function words(all: readonly ShellWord[], from: number): { line: string; dynamic: boolean } {
  const rest = all.slice(from);
  return { line: rest.map((word) => word.text).join(' '), dynamic: rest.some((w) => w.dynamic) };
}

/** The command after a JavaScript wrapper's options and variables; null for any other program. */
export function nodeWrapper(
  program: string,
  all: readonly ShellWord[],
  from: number,
): Unwrapped | null {
  if (program === 'cross-env') {
    let index = from;
    while (index < all.length && all[index]!.text.includes('=')) index++;
    return { kind: 'words', from: index };
  }
  if (program === 'cross-env-shell') return { kind: 'line', ...words(all, from) };
  if (program === 'concurrently') {
    // Each operand is a command line (`npm:NAME` runs a script); an option may take the next word.
    const lines = all.slice(from).filter((word) => !word.text.startsWith('-'));
    return {
      kind: 'line',
      line: lines.map((word) => word.text).join('\n'),
      dynamic: true,
      note: 'concurrently runs each operand as a command, and its options may take values',
    };
  }
  const valued = LOADS_VARIABLES.has(program) ? VALUED[program]! : undefined;
  if (valued === undefined) return null;
  let index = from;
  while (index < all.length && all[index]!.text.startsWith('-')) {
    const text = all[index]!.text;
    index += text === '--' ? 1 : valued.has(text) ? 2 : 1;
    if (text === '--') break;
  }
  return { kind: 'words', from: index, tags: ['unknown'] };
}
