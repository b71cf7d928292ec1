import { readFile } from 'node:fs/promises';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import {
  type ApprovalRule,
  isSettingError,
  readKernelUrl,
  readRequestTimeout,
  type SettingError,
  validateProfileConfiguration,
  whereJsonBroke,
} from '@airlock/core';
import { credentialKind, type MemberRunPolicy } from './gateway/client-credential.js';
import {
  commandLineServer,
  type NamedServer,
  readServersFile,
  ServersConfigError,
} from './servers-config.js';

/** A command-line mistake: the message is one line for the user, the status the exit code. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly status = 2,
    /** The command line could not be read (an unknown flag): the line points at --help. */
    readonly seeHelp = false,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Flags both commands take. */
export const COMMON_OPTIONS = {
  url: { type: 'string' },
  name: { type: 'string' },
  config: { type: 'string' },
  'executor-token': { type: 'string' },
  'agent-token': { type: 'string' },
  workspace: { type: 'string' },
  timeout: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Parses flags up to `--`; what follows `--` is the server's command line. */
export function parseCommand(argv: readonly string[], options: ParseArgsConfig['options']) {
  const split = argv.indexOf('--');
  const flags = split === -1 ? [...argv] : argv.slice(0, split);
  const command = split === -1 ? [] : argv.slice(split + 1);
  try {
    const parsed = parseArgs({ args: flags, options, allowPositionals: false, strict: true });
    return { values: parsed.values as Record<string, string | boolean | undefined>, command };
  } catch (error) {
    throw new UsageError(parseFailure(error as { code?: string; message: string }), 2, true);
  }
}

/**
 * Node's refusal of a command line in the words the kernel's CLI uses (`unknown option --x`):
 * Node names the flag in quotes and a hint that fits another program ("Unknown option '--x'. To
 * specify a positional argument ...").
 */
function parseFailure({ code, message }: { code?: string; message: string }): string {
  const quoted = /'([^' ]*)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && quoted) return `unknown option ${quoted}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && quoted && message.includes('missing')) {
    return `${quoted} needs a value`;
  }
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' && quoted !== undefined) {
    return `unexpected argument ${JSON.stringify(quoted)}: a server's command goes after --name NAME --`;
  }
  return message.replace(/\n/g, ' ');
}

/** The servers named by `--config FILE`, or by `--name NAME -- command...`. */
export async function serversFrom(
  values: Record<string, string | boolean | undefined>,
  command: readonly string[],
): Promise<NamedServer[]> {
  try {
    if (typeof values.config === 'string') {
      if (command.length > 0 || values.name !== undefined) {
        throw new UsageError('give --config FILE or --name NAME -- command [args...], not both');
      }
      return await readServersFile(values.config);
    }
    if (typeof values.name !== 'string' || command.length === 0) {
      throw new UsageError('name the servers: --config FILE, or --name NAME -- command [args...]');
    }
    return [commandLineServer(values.name, command)];
  } catch (error) {
    if (error instanceof ServersConfigError) throw new UsageError(error.message);
    throw error;
  }
}

/** The gateway's flags that only its HTTP front reads. */
const HTTP_ONLY_FLAGS = [
  'host',
  'port',
  'allow-origin',
  'session-idle',
  'max-sessions-per-credential',
  'max-sessions',
] as const;

/**
 * Refuses a gateway flag the chosen front would not read, so none is given in
 * vain: the HTTP front's flags without `--http`, and `--token` (the stdio
 * client's credential) with it.
 * @throws UsageError naming the flag.
 */
export function refuseUnreadGatewayFlags(values: Record<string, unknown>): void {
  if (values.http === true) {
    if (values.token !== undefined) {
      throw new UsageError(
        "--token is the --stdio client's credential; over --http each client sends its own as a bearer token",
      );
    }
    return;
  }
  const unread = HTTP_ONLY_FLAGS.filter((flag) => values[flag] !== undefined);
  if (unread.length > 0) {
    throw new UsageError(`${unread.map((flag) => `--${flag}`).join(', ')}: read only with --http`);
  }
}

/**
 * Refuses `--rules` for a stdio client whose credential is an agent's: its
 * runs take the agent's profile, so the file would never be read.
 * @throws UsageError naming both.
 */
export function refuseUnreadRules(rules: unknown, stdioToken: string | null): void {
  if (rules === undefined || stdioToken === null || credentialKind(stdioToken) !== 'agent') return;
  throw new UsageError(
    "--rules sets the runs of a member's credential; the --stdio client's credential (--token or AIRLOCK_TOKEN) is an agent's, whose runs take its profile",
  );
}

/** A flag's value, else an environment variable's, else a refusal naming both. */
export function required(value: string | boolean | undefined, env: string, flag: string): string {
  const found = typeof value === 'string' ? value : process.env[env];
  if (!found) throw new UsageError(`missing ${flag} (or ${env})`);
  return found;
}

/**
 * The workspace `airlock executor mcp` reads its credentials in: `--workspace`,
 * else AIRLOCK_WORKSPACE (an empty one counts as unset); undefined when
 * neither is set, and each credential is then read in its own workspace.
 */
export function bridgeWorkspace(value: string | boolean | undefined): string | undefined {
  return (typeof value === 'string' && value) || process.env.AIRLOCK_WORKSPACE || undefined;
}

/**
 * The kernel URL from `--url`, else AIRLOCK_URL (an empty one counts as
 * unset), else the local kernel; read as the operator commands read theirs.
 * @throws UsageError naming where it came from when it is not an http(s) URL
 *   (quoted without what may be credentials).
 */
export function kernelUrl(value: string | boolean | undefined): string {
  return usable(() => readKernelUrl(typeof value === 'string' ? value : undefined, process.env))
    .url;
}

/**
 * How long each request to the kernel waits for its answer, in milliseconds:
 * `--timeout`, else AIRLOCK_TIMEOUT (an empty one counts as unset), else 30 s.
 * Read as the operator commands read theirs (`30s`, `500ms`, `2m`).
 * @throws UsageError naming the flag or variable when the value is not a
 *   duration with its unit from 100ms to 1h.
 */
export function requestTimeout(value: string | boolean | undefined): number {
  return usable(() =>
    readRequestTimeout(typeof value === 'string' ? value : undefined, process.env),
  ).timeoutMs;
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
 * Reads a member run policy file: `{"approval_mode", "approval_rules"}`.
 * @throws UsageError when it cannot be read or has the wrong shape.
 */
export async function readPolicy(path: string): Promise<MemberRunPolicy> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the rules file ${path}: ${(error as Error).message}`);
  }
  let value: { approval_mode?: unknown; approval_rules?: unknown };
  try {
    value = JSON.parse(text);
  } catch (error) {
    // Not the parser's message: it quotes the text around the break.
    throw new UsageError(`the rules file ${path} is not JSON${whereJsonBroke(error, text)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(
      `${path}: the rules file must hold an object {"approval_mode", "approval_rules"}`,
    );
  }
  const mode = value.approval_mode;
  if (mode !== 'bypass' && mode !== 'ask' && mode !== 'rules') {
    throw new UsageError(`${path}: approval_mode must be bypass, ask or rules`);
  }
  if (value.approval_rules !== undefined && !Array.isArray(value.approval_rules)) {
    throw new UsageError(`${path}: approval_rules must be a list`);
  }
  const policy: MemberRunPolicy = {
    approval_mode: mode,
    approval_rules: (value.approval_rules as ApprovalRule[] | undefined) ?? [],
  };
  // What the kernel checks when a member's run starts: a bad rule refused now, not at every first call.
  const checked = validateProfileConfiguration(policy);
  if (!checked.ok) {
    const problems = checked.problems.map((problem) => `${problem.pointer}: ${problem.message}`);
    throw new UsageError(`${path}: ${problems.join('; ')}`);
  }
  return policy;
}
