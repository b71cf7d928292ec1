import { parseArgs } from 'node:util';
import { UsageError } from './cli-io.js';

/** Output formats of `check` and `test`. */
export const FORMATS = ['pretty', 'json', 'sarif', 'github', 'junit', 'checkstyle'] as const;
/** One of FORMATS. */
export type Format = (typeof FORMATS)[number];

type OptionSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;

/**
 * Parses a command's arguments strictly (unknown options and missing values
 * are usage errors) and returns its string options and positionals.
 * Throws UsageError.
 */
export function parseCommand(
  command: string,
  args: readonly string[],
  options: OptionSpec,
  positionals: { min: number; max: number; name: string },
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: negativeValuesJoined(args, options),
      options,
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message.split('\n')[0]}`);
  }
  const count = parsed.positionals.length;
  if (count < positionals.min) throw new UsageError(`${command}: missing ${positionals.name}`);
  if (count > positionals.max)
    throw new UsageError(
      `${command}: unexpected argument "${parsed.positionals[positionals.max]}"`,
    );
  return {
    values: parsed.values as Record<string, string | boolean | undefined>,
    positionals: parsed.positionals,
  };
}

/**
 * The arguments with `--name -1` written as `--name=-1` for a string option:
 * parseArgs refuses a value that starts with a dash as ambiguous, but a
 * negative number (`--max-warnings -1`) is one. Nothing after `--` changes.
 */
function negativeValuesJoined(args: readonly string[], options: OptionSpec): string[] {
  const joined: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index]!;
    if (arg === '--') return [...joined, ...args.slice(index)];
    const next = args[index + 1];
    const option = arg.startsWith('--') ? options[arg.slice(2)] : undefined;
    if (option?.type === 'string' && next !== undefined && /^-\d+$/.test(next)) {
      joined.push(`${arg}=${next}`);
      index += 1;
    } else joined.push(arg);
  }
  return joined;
}

/** Reads `--format`, default pretty. Throws UsageError on another value. */
export function formatOption(value: string | boolean | undefined): Format {
  if (value === undefined) return 'pretty';
  if (typeof value === 'string' && (FORMATS as readonly string[]).includes(value))
    return value as Format;
  throw new UsageError(`--format must be ${FORMATS.join(', ')}, not "${String(value)}"`);
}

/** Reads a required string option. Throws UsageError when it is absent. */
export function requiredOption(
  values: Record<string, string | boolean | undefined>,
  name: string,
  command: string,
): string {
  const value = values[name];
  if (typeof value !== 'string') throw new UsageError(`${command}: --${name} is required`);
  return value;
}

/** Reads an option that must be one of a few words. Throws UsageError. */
export function choiceOption<T extends string>(
  value: string | boolean | undefined,
  name: string,
  choices: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && (choices as readonly string[]).includes(value))
    return value as T;
  throw new UsageError(`--${name} must be ${choices.join(', ')}, not "${String(value)}"`);
}
