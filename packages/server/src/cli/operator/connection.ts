import {
  forTerminal,
  isSettingError,
  type KernelUrl,
  readKernelUrl,
  readRequestTimeout,
  refusalLines,
  shellQuoted,
  shownKernelUrl,
  terminalJson,
  unknownVerbLine,
} from '@airlock/core/command-line';
import type { Call } from '@airlock/sdk';
import {
  flagText,
  type ParsedCommandLine,
  parseVerbCommandLine,
  UsageError,
  type VerbShape,
} from '../command-line.js';
import { warnOfSecretOnCommandLine } from '../secret-input.js';
import { type OutputLine, terminalLine } from '../terminal-lines.js';
import type { TokenSetting } from './kernel-caller.js';
import { OperatorError } from './operator-error.js';

/** Where and as whom an operator command talks to a running kernel. */
export interface Connection {
  readonly url: string;
  readonly token: string;
  readonly workspace: string;
  readonly json: boolean;
  /**
   * The connection flags given on the command line (`--url`, `--workspace`, shell-quoted, the
   * URL without credentials; never `--token`): a command printed for the operator to run next
   * repeats them, or it would reach the kernel and workspace the environment names.
   */
  readonly repeatFlags: readonly string[];
  /**
   * Calls an operation of the kernel through the SDK, typed by its contract.
   * @throws AirlockError when the kernel refuses; OperatorError (exit 1) when it cannot be
   *   reached, or the server at the URL does not answer as an Airlock kernel.
   */
  readonly call: Call;
}

export { UsageError } from '../command-line.js';
export { OperatorError } from './operator-error.js';

/** Options every operator command takes. */
export const CONNECTION_OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
  workspace: { type: 'string' },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The help lines for the connection options. */
export const CONNECTION_HELP = `Connection (flags win over the environment):
  --url <url>          the kernel's base URL (env AIRLOCK_URL; default http://127.0.0.1:4820)
  --token <token>      a bearer credential (env AIRLOCK_TOKEN; prefer it: a token
                       on the command line shows in ps and shell history, and
                       draws a warning)
  --workspace <id>     the workspace id (env AIRLOCK_WORKSPACE)
  --timeout <dur>      give up on a request the kernel has not answered in this
                       long, e.g. 30s, 2m (env AIRLOCK_TIMEOUT; default 30s)
  --json               print JSON instead of text
`;

/**
 * Parses `airlock <command> <verb> ...` of an operator command: each verb's
 * own flags and operands, and the connection flags every verb takes.
 * @throws UsageError (exit 2) on an unknown option, a flag of another verb
 *   or an argument the verb does not take.
 */
export function parseOperatorArgs(
  argv: string[],
  command: string,
  verbs: Readonly<Record<string, VerbShape>>,
): ParsedCommandLine {
  const parsed = parseVerbCommandLine(argv, {
    command: `airlock ${command}`,
    common: CONNECTION_OPTIONS,
    verbs,
  });
  const [verb] = parsed.positionals;
  // `airlock runs help`, as `airlock help runs` and git take it.
  if (verb === 'help') return { ...parsed, values: { ...parsed.values, help: true } };
  // Told before the connection is read: a missing token would hide the typo until it is set.
  if (parsed.values.help !== true && verb !== undefined && !Object.hasOwn(verbs, verb)) {
    throw new UsageError(unknownVerbLine(command, verb, Object.keys(verbs)));
  }
  return parsed;
}

/**
 * Reads the connection from flags and the environment.
 * @throws UsageError (exit 2) when the token or workspace is missing or blank, the token
 *   holds what no token does, or the URL or timeout is not one it can use (naming the flag
 *   or variable).
 */
export function connectionFrom(values: {
  url?: string | boolean | undefined;
  token?: string | boolean | undefined;
  workspace?: string | boolean | undefined;
  timeout?: string | boolean | undefined;
  json?: string | boolean | undefined;
}): Connection {
  const kernel = usable(() => readKernelUrl(flagText(values, 'url'), process.env));
  const token = values.token ?? process.env.AIRLOCK_TOKEN;
  const workspace = values.workspace ?? process.env.AIRLOCK_WORKSPACE;
  // Blank counts as missing (`--workspace "$WS"` with WS a space): sent on, the kernel said forbidden.
  if (typeof token !== 'string' || token.trim() === '') {
    throw new UsageError(
      'no credential: pass --token or set AIRLOCK_TOKEN (see `airlock serve` output)',
    );
  }
  if (typeof workspace !== 'string' || workspace.trim() === '') {
    throw new UsageError('no workspace: pass --workspace or set AIRLOCK_WORKSPACE');
  }
  const tokenSource = typeof values.token === 'string' ? '--token' : 'AIRLOCK_TOKEN';
  const unlikeToken = tokenProblem(token);
  if (unlikeToken !== null) {
    throw new UsageError(
      `${tokenSource} holds ${unlikeToken}: a token is one word of visible ASCII, as issued`,
    );
  }
  const { timeoutMs } = usable(() => readRequestTimeout(flagText(values, 'timeout'), process.env));
  // It works (scripts use it), but its credential stays valid after the command: said each time.
  if (typeof values.token === 'string') {
    warnOfSecretOnCommandLine('airlock', 'set AIRLOCK_TOKEN instead');
  }
  const repeatFlags = [
    ...(typeof values.url === 'string' ? [`--url ${shellQuoted(shownKernelUrl(kernel.url))}`] : []),
    ...(typeof values.workspace === 'string' ? [`--workspace ${shellQuoted(workspace)}`] : []),
  ];
  return {
    url: kernel.url,
    token,
    workspace,
    json: values.json === true,
    repeatFlags,
    call: lazyCallerOf(kernel, { token, source: tokenSource }, timeoutMs),
  };
}

/**
 * What in a credential no token holds, or null: a line break (a token file
 * with Windows line ends, read into AIRLOCK_TOKEN), a space, a character
 * past visible ASCII. Said before any call, naming where it came from; the
 * SDK's own refusal named neither, with exit 1.
 */
function tokenProblem(token: string): string | null {
  if (/[\r\n]/.test(token)) return 'a line break';
  if (/\s/.test(token)) return 'a space';
  return /^[\x21-\x7e]+$/.test(token) ? null : 'a character that is not visible ASCII';
}

/**
 * What `read` reads from a flag or the environment.
 * @throws UsageError (exit 2) with the message of the {@link SettingError} it throws.
 */
function usable<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (isSettingError(error)) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * The SDK's call, loaded at the first call: a command line the command
 * refuses (an unknown flag, a missing argument, no credential) is told
 * before the SDK and the contracts' schemas load, at Node's start-up cost.
 */
function lazyCallerOf(kernel: KernelUrl, credential: TokenSetting, timeoutMs: number): Call {
  let caller: Promise<Call> | undefined;
  const call = async (...args: Parameters<Call>) => {
    caller ??= import('./kernel-caller.js').then((loaded) =>
      loaded.callerOf(kernel, credential, timeoutMs),
    );
    return (await caller)(...args);
  };
  return call as Call;
}

/**
 * True when the kernel refused a call with this code. The SDK is loaded
 * here, not before: a command asks only after a call, which loaded it.
 */
export async function isKernelRefusal(error: unknown, code: string): Promise<boolean> {
  const { isAirlockError } = await import('@airlock/sdk');
  return isAirlockError(error) && error.code === code;
}

/**
 * How a failure of an operator command reads on stderr, and its exit code:
 * an operator error as it says (its own code); a refusal of the kernel as
 * `code: detail` with the server's stable code, then a line for each problem
 * it found (exit 1); anything else by its message (exit 1).
 */
export async function describeFailure(
  error: unknown,
): Promise<{ message: string; exitCode: number }> {
  // A detail may repeat what the operator or an agent sent: its control characters are escaped.
  if (error instanceof OperatorError) {
    const lines = [error.message, ...error.details].map(forTerminal);
    return { message: lines.join('\n'), exitCode: error.status };
  }
  // Loaded only for a failure that is not the command's own: a usage error needs no SDK.
  const { isAirlockError } = await import('@airlock/sdk');
  if (isAirlockError(error)) {
    return { message: refusalLines(error).join('\n'), exitCode: 1 };
  }
  const code = (error as NodeJS.ErrnoException).code;
  // `airlock serve` on a port something else listens on: say what to do about it.
  const hint =
    code === 'EADDRINUSE'
      ? ' (another process listens there: pick another port with --port N)'
      : '';
  return { message: forTerminal(`${(error as Error).message}${hint}`), exitCode: 1 };
}

/**
 * Prints a value as JSON (as the kernel answered it, see {@link terminalJson}) or as the lines a person
 * reads, each with its control characters and tabs escaped; a table row's
 * cells are escaped one by one and joined by tabs (see {@link terminalLine}).
 */
export function print(
  connection: Connection,
  value: unknown,
  lines: () => readonly OutputLine[],
): void {
  if (connection.json) process.stdout.write(`${terminalJson(value, 2)}\n`);
  else process.stdout.write(`${lines().map(terminalLine).join('\n')}\n`);
}
