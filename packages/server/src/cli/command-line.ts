import { parseArgs } from 'node:util';
import { mayBeSecret, shownWord } from '@airlock/core/command-line';
import { OperatorError } from './operator/operator-error.js';

/** A word given as an argument, quoted, or held back when it may be a secret (see shownWord). */
function quotedWord(word: string): string {
  return mayBeSecret(word) ? shownWord(word) : JSON.stringify(word);
}

/** A flag that takes a value (`--limit 5`) or a switch (`--json`). */
export interface FlagShape {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
}

/** The flags a command or one of its verbs takes, by name. */
export type FlagTable = Readonly<Record<string, FlagShape>>;

/** What one verb of a command takes after its name. */
export interface VerbShape {
  /** Its arguments in order, as its usage writes them (`<run-id>`): the most it takes. */
  readonly operands?: readonly string[];
  /** Its own flags, beside those every verb of the command takes. */
  readonly flags?: FlagTable;
}

/**
 * A command line that cannot be right (an unknown flag, an argument too many,
 * a flag's value it cannot use): an operator error whose exit code is 2.
 */
export class UsageError extends OperatorError {
  constructor(message: string, details: readonly string[] = []) {
    super(message, 2, details);
  }
}

/** The flags and the arguments of a command line. */
export interface ParsedCommandLine {
  readonly values: Record<string, string | boolean | undefined>;
  readonly positionals: string[];
}

/** The value of a flag that takes one; undefined when it was not given. */
export function flagText(values: ParsedCommandLine['values'], name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * A variable of the environment as a setting: undefined when it is unset,
 * empty or blank (`AIRLOCK_DATA_DIR= airlock ...`), so the default applies.
 */
export function environmentSetting(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const text = env[name];
  return text === undefined || text.trim() === '' ? undefined : text;
}

/**
 * The store a command opens from its `--data-dir` and `--database-url`
 * flags, which win over AIRLOCK_DATA_DIR and DATABASE_URL; an empty variable
 * counts as unset, as for `airlock serve` ('' would be the current
 * directory), and the data directory defaults to ./.airlock.
 * @throws UsageError when either flag is given empty.
 */
export function storeLocationOf(
  values: ParsedCommandLine['values'],
  command: string,
  env: NodeJS.ProcessEnv = process.env,
): { dataDir: string; databaseUrl: string | undefined } {
  // An empty flag is a mistake (an unset shell variable, `--data-dir=`), as `airlock serve` says:
  // read as the current directory it would open or create a store where none was meant.
  for (const flag of ['data-dir', 'database-url']) {
    if (flagText(values, flag)?.trim() === '') {
      throw new UsageError(
        `${command}: --${flag} is empty: give it a value, or leave the flag out`,
      );
    }
  }
  return {
    dataDir:
      flagText(values, 'data-dir') ?? environmentSetting(env, 'AIRLOCK_DATA_DIR') ?? '.airlock',
    databaseUrl: flagText(values, 'database-url') ?? environmentSetting(env, 'DATABASE_URL'),
  };
}

/**
 * What Node's parseArgs refused, the way an operator fixes it (`unknown option --kind`,
 * `--limit needs a value`), in one line.
 */
export function parseFailureText(error: unknown): string {
  const { code, message } = error as { code?: string; message: string };
  // Node names the flag in quotes: "Unknown option '--kind'. To specify a positional ...".
  const flag = /'(-[^' ]*)/.exec(message)?.[1];
  // And the argument: "Unexpected argument 'x'. This command does not take positional arguments".
  const argument = /^Unexpected argument '(.*)'\. /s.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' && argument !== undefined) {
    return `unexpected argument ${quotedWord(argument)} (it takes no arguments)`;
  }
  return code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag
    ? `unknown option ${shownWord(flag)}`
    : code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag && message.includes('missing')
      ? `${flag} needs a value`
      : code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag && message.includes('ambiguous')
        ? // A value that starts with a dash (`--limit -1`): Node reads it as another flag.
          `${flag} takes a value that starts with a dash only as ${flag}=VALUE`
        : // Node's own text: one line, whatever it says.
          message.replace(/\n/g, ' ');
}

/**
 * Reads `argv` against these flags, saying what is wrong the way an operator fixes it.
 * @throws UsageError on an unknown option or a flag without its value.
 */
function readArgs(argv: string[], command: string, options: FlagTable): ParsedCommandLine {
  try {
    const parsed = parseArgs({ args: argv, allowPositionals: true, options: { ...options } });
    return {
      values: parsed.values as Record<string, string | boolean | undefined>,
      positionals: parsed.positionals,
    };
  } catch (error) {
    throw new UsageError(`${command}: ${parseFailureText(error)} (see ${command} --help)`);
  }
}

/**
 * Refuses arguments past the most a command takes.
 * @throws UsageError naming them and what the command takes.
 */
function refuseExtraOperands(
  command: string,
  help: string,
  operands: readonly string[],
  given: readonly string[],
): void {
  const extra = given.slice(operands.length);
  if (extra.length === 0) return;
  const takes = operands.length === 0 ? 'takes no arguments' : `takes ${operands.join(' ')}`;
  throw new UsageError(
    `${command}: unexpected argument${extra.length > 1 ? 's' : ''} ${extra.map(quotedWord).join(' ')} ` +
      `(it ${takes}; see ${help} --help)`,
  );
}

/**
 * Refuses an argument given empty or blank (`airlock runs show "$RUN"` with
 * RUN unset, `' '`): it names nothing, and sent on the kernel would answer
 * not_found (exit 1) or act on a row nobody meant.
 * @throws UsageError naming the argument as the usage writes it (`<run-id>`).
 */
function refuseBlankOperands(
  command: string,
  help: string,
  operands: readonly string[],
  given: readonly string[],
): void {
  const blank = given.findIndex((text, index) => index < operands.length && text.trim() === '');
  if (blank === -1) return;
  throw new UsageError(
    `${command}: ${operands[blank]} is ${given[blank] === '' ? 'empty' : 'blank'}: give a value (see ${help} --help)`,
  );
}

/**
 * Parses `airlock <command> [operands] [flags]`, a command without verbs
 * (`airlock backup <file>`). With --help nothing more is checked.
 * @throws UsageError on an unknown option, a flag without its value, an
 *   argument too many, or one given empty or blank.
 */
export function parseCommandLine(
  argv: string[],
  shape: { command: string; flags: FlagTable; operands: readonly string[] },
): ParsedCommandLine {
  const parsed = readArgs(argv, shape.command, shape.flags);
  if (parsed.values.help !== true) {
    refuseExtraOperands(shape.command, shape.command, shape.operands, parsed.positionals);
    refuseBlankOperands(shape.command, shape.command, shape.operands, parsed.positionals);
  }
  return parsed;
}

/**
 * Parses `airlock <command> <verb> [operands] [flags]`: the flags of every
 * verb are read, then the verb named is held to its own flags (and `common`,
 * which every verb takes) and to the most operands it takes. A missing or
 * unknown verb, and --help, are left to the command, which prints its help
 * or names its verbs.
 * @throws UsageError on an unknown option, a flag without its value, a flag
 *   of another verb, an argument the verb does not take, or one given empty or blank.
 */
export function parseVerbCommandLine(
  argv: string[],
  shape: { command: string; common: FlagTable; verbs: Readonly<Record<string, VerbShape>> },
): ParsedCommandLine {
  const every: Record<string, FlagShape> = {};
  for (const verb of Object.values(shape.verbs)) Object.assign(every, verb.flags);
  const parsed = readArgs(argv, shape.command, { ...every, ...shape.common });
  const [verb, ...operands] = parsed.positionals;
  if (parsed.values.help === true || verb === undefined || !Object.hasOwn(shape.verbs, verb)) {
    return parsed;
  }
  const own = shape.verbs[verb]!;
  const named = `${shape.command} ${verb}`;
  for (const flag of Object.keys(parsed.values)) {
    if (!Object.hasOwn(shape.common, flag) && !Object.hasOwn(own.flags ?? {}, flag)) {
      throw new UsageError(
        `${named}: --${flag} is not an option of ${verb} (see ${shape.command} --help)`,
      );
    }
  }
  refuseExtraOperands(named, shape.command, own.operands ?? [], operands);
  refuseBlankOperands(named, shape.command, own.operands ?? [], operands);
  return parsed;
}
