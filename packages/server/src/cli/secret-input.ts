import { mayBeSecret } from '@airlock/core/command-line';
import { UsageError } from './command-line.js';

/** The most a secret read from standard input may hold: a token is under 100 bytes. */
const SECRET_INPUT_MAX_BYTES = 64 * 1024;

/** Where a secret came from and what it is, to name it in a warning or a refusal. */
export interface SecretArgument {
  /** The command as its messages start (`airlock tokens revoke`). */
  readonly command: string;
  /** What the value is (`credential id or token`). */
  readonly what: string;
  /** How the command line gives it on standard input instead (`airlock tokens revoke -`). */
  readonly fromStdin: string;
  /** Whether a value given on the command line is a secret: warned about when it is. */
  readonly isSecret: (text: string) => boolean;
}

/**
 * Whether a value may be a token rather than a credential id (`cred_…`): core's
 * {@link mayBeSecret}, the one place that knows the token shape (`alk_…`, also quoted or
 * after `--token=`) and holds any word too long to be an id as a pasted secret.
 */
export function looksLikeToken(text: string): boolean {
  return mayBeSecret(text);
}

/**
 * Says on stderr that a secret was given on the command line, where any user
 * can read it in `ps` and it stays in shell history, and what to do instead.
 */
export function warnOfSecretOnCommandLine(command: string, instead: string): void {
  process.stderr.write(
    `${command}: warning: a secret on the command line can be read by other users (ps) and stays in your shell history; ${instead}\n`,
  );
}

/**
 * Reads a value that may be a secret: `-` reads it from standard input (one
 * line, e.g. `airlock tokens revoke - < token-file` or `printenv T |
 * airlock tokens revoke -`), anything else is the value itself. A secret on
 * the command line still works (once revoked or used, a token is worth
 * nothing, and refusing it would strand scripts), but any user can read it
 * in `ps` and it stays in shell history: a warning on stderr says so and
 * what to do instead. From a terminal, a line on stderr says what it waits
 * for, and the first line (ended by Enter) is the value.
 * @throws UsageError (exit 2) when standard input holds no value, more than
 *   one line, or more than 64 KiB.
 */
export async function readSecretArgument(
  text: string,
  argument: SecretArgument,
  stdin: NodeJS.ReadableStream = process.stdin,
): Promise<string> {
  if (text !== '-') {
    if (argument.isSecret(text)) {
      warnOfSecretOnCommandLine(
        argument.command,
        `pass it on standard input instead: ${argument.fromStdin} < file, or printenv VAR | ${argument.fromStdin}`,
      );
    }
    return text;
  }
  const terminal = (stdin as { isTTY?: boolean }).isTTY === true;
  if (terminal) {
    // A person at a terminal, not a pipe: otherwise the command waits without a word.
    process.stderr.write(
      `${argument.command}: reading the ${argument.what} from standard input (type or paste it, then Enter; Ctrl-C cancels)\n`,
    );
  }
  const value = (await readCapped(stdin, argument, terminal)).replace(/\r?\n$/, '').trim();
  if (value === '') {
    throw new UsageError(`${argument.command}: no ${argument.what} on standard input`);
  }
  if (/[\r\n]/.test(value)) {
    throw new UsageError(
      `${argument.command}: standard input holds more than one line; give one ${argument.what}`,
    );
  }
  return value;
}

/**
 * Standard input's text, to its end, or (from a terminal, whose reader
 * ends a value with Enter, not Ctrl-D) to the end of its first line.
 */
async function readCapped(
  stdin: NodeJS.ReadableStream,
  argument: SecretArgument,
  oneLine: boolean,
): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stdin) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    total += bytes.byteLength;
    if (total > SECRET_INPUT_MAX_BYTES) {
      throw new UsageError(
        `${argument.command}: standard input holds more than ${SECRET_INPUT_MAX_BYTES} bytes; give one ${argument.what}`,
      );
    }
    chunks.push(bytes);
    if (oneLine && bytes.includes(0x0a)) break;
  }
  return Buffer.concat(chunks).toString('utf8');
}
