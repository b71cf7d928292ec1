#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { forTerminal, refusalLines } from '@airlock/core';
import { isConnectionError, isDeadlineExceededError } from '@airlock/sdk';
import {
  bridgeWorkspace,
  COMMON_OPTIONS,
  kernelUrl,
  parseCommand,
  readPolicy,
  refuseUnreadGatewayFlags,
  refuseUnreadRules,
  requestTimeout,
  required,
  serversFrom,
  UsageError,
} from './cli-options.js';
import { type ExecutorBridge, startExecutorBridge } from './executor-bridge.js';
import { startGateway } from './gateway/gateway.js';
import { hasErrorCode } from './kernel-api.js';

const EXECUTOR_HELP = `Usage: airlock executor mcp (--name NAME -- command [args...] | --config FILE) [options]

Starts MCP servers over stdio and serves their tools (NAME__tool) as an Airlock executor.
  --config FILE          several servers: {"mcpServers": {"fs": {"command", "args", "env", "cwd"}}}
  --url URL              the kernel (env AIRLOCK_URL; default http://127.0.0.1:4820)
  --executor-token TOK   an executor credential (env AIRLOCK_EXECUTOR_TOKEN)
  --agent-token TOK      register the tools in this agent's profile (env AIRLOCK_AGENT_TOKEN)
  --workspace ID         the workspace of both credentials (env AIRLOCK_WORKSPACE); optional:
                         without it each credential is read in its own workspace
  --timeout DUR          give up on a kernel request not answered in this long, e.g. 30s, 2m
                         (env AIRLOCK_TIMEOUT; default 30s)
`;

const GATEWAY_HELP = `Usage: airlock gateway mcp (--name NAME -- command [args...] | --config FILE) [options]

Serves the servers' tools to MCP clients; every call crosses Airlock's approval stage.
  --stdio                serve one client on stdin/stdout with --token (the default)
  --http                 serve Streamable HTTP at /mcp; clients send a member or agent bearer token
  --host ADDR --port N   where --http listens (default 127.0.0.1:4821: loopback only)
  --allow-origin ORIGIN  serve browser requests from this Origin (repeatable; others get 403)
  --session-idle SECONDS end an HTTP session (and its gateway run) after this long without a request (default 1800)
  --max-sessions-per-credential N
                         HTTP sessions one credential may hold open (default 32; past it 429)
  --max-sessions N       HTTP sessions open in all (default 1024; past it 503)
  --token TOK            the client credential for --stdio, member or agent (env AIRLOCK_TOKEN)
  --workspace ID         the workspace (env AIRLOCK_WORKSPACE)
  --rules FILE           mode and rules of member runs: {"approval_mode", "approval_rules"}
  --await-commits        answer a call only once its row is committed (default: as soon as the tool returned)
  --timeout DUR          give up on a kernel request not answered in this long, e.g. 30s, 2m; the
                         client's call then answers a deadline_exceeded error; a call waiting for a
                         person is not cut short (env AIRLOCK_TIMEOUT; default 30s)
  --url, --executor-token, --agent-token, --config, --name as for \`airlock executor mcp\`
`;

/**
 * Writes lines to stderr, each prefixed. What they repeat (a server's tool names and messages,
 * the kernel's detail) has its control characters escaped, so a terminal shows them and does
 * not act on them.
 */
function log(...lines: string[]): void {
  for (const line of lines) process.stderr.write(`airlock mcp: ${forTerminal(line)}\n`);
}

/**
 * Logs a failure met while serving (a refused commit, a dropped message): a refusal of the
 * kernel with every problem it found, one line each, like a refused start.
 */
function logFailure(error: Error): void {
  if (hasErrorCode(error)) log(...refusalLines(error));
  else log(error.message);
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

/** A positive whole number given as `--name`, or its default. */
function positiveCount(values: Record<string, unknown>, name: string, fallback: number): number {
  const given = values[name];
  if (given === undefined) return fallback;
  const count = Number(given);
  if (!Number.isInteger(count) || count <= 0) {
    throw new UsageError(`--${name} must be a positive whole number, not ${String(given)}`);
  }
  return count;
}

/** Says what `--agent-token` did: a new profile version, or why the tools were not registered. */
function logRegistration(bridge: ExecutorBridge): void {
  if (bridge.registration === 'registered') {
    log(`registered the tools in the profile (version ${bridge.registeredVersion})`);
  } else if (bridge.registration === 'no_profile') {
    log(
      'the agent has no profile yet, so the tools were not registered: declare one (PUT /agent_api/v1/profile/configuration) and start again',
    );
  }
  if (bridge.manifestLeftOut) {
    log(
      "the profile selects a permission rule set and declares no tool_manifest, so the tools' manifest entries were not written (a manifest of these tools alone would make every other tool of the agent ask); declare the agent's tools in a manifest to have them added",
    );
  }
}

/** `airlock executor mcp`: runs the executor bridge until SIGINT/SIGTERM. */
export async function executorCommand(argv: readonly string[]): Promise<number> {
  const { values, command } = parseCommand(argv, COMMON_OPTIONS);
  if (values.help) {
    process.stdout.write(EXECUTOR_HELP);
    return 0;
  }
  // Refused before any server is started.
  const url = kernelUrl(values.url);
  const timeoutMs = requestTimeout(values.timeout);
  const agentToken =
    (values['agent-token'] as string | undefined) ?? process.env.AIRLOCK_AGENT_TOKEN;
  const workspaceId = bridgeWorkspace(values.workspace);
  const servers = await serversFrom(values, command);
  // Listening from the start: a stop asked for during startup is honored once it is done.
  const stopped = untilSignal();
  const bridge = await startExecutorBridge({
    url,
    executorToken: required(values['executor-token'], 'AIRLOCK_EXECUTOR_TOKEN', '--executor-token'),
    agentToken,
    workspaceId,
    servers,
    timeoutMs,
    onError: logFailure,
  });
  log(`serving ${bridge.tools.size} tools: ${[...bridge.tools.keys()].join(', ')}`);
  logRegistration(bridge);
  // An executor that ended by itself serves nothing: exit, so a supervisor restarts or alerts.
  const end = await Promise.race([stopped.then(() => null), bridge.ended]);
  if (end) log(`the executor stopped serving: ${end.message}; shutting down`);
  await bridge.close();
  return end ? 1 : 0;
}

/** `airlock gateway mcp`: serves MCP clients over stdio or Streamable HTTP until stopped. */
export async function gatewayCommand(argv: readonly string[]): Promise<number> {
  const { values, command } = parseCommand(argv, {
    ...COMMON_OPTIONS,
    stdio: { type: 'boolean' },
    http: { type: 'boolean' },
    host: { type: 'string' },
    port: { type: 'string' },
    token: { type: 'string' },
    rules: { type: 'string' },
    'allow-origin': { type: 'string', multiple: true },
    'session-idle': { type: 'string' },
    'max-sessions-per-credential': { type: 'string' },
    'max-sessions': { type: 'string' },
    'await-commits': { type: 'boolean' },
  });
  if (values.help) {
    process.stdout.write(GATEWAY_HELP);
    return 0;
  }
  if (values.stdio && values.http) throw new UsageError('choose --stdio or --http');
  refuseUnreadGatewayFlags(values);
  const url = kernelUrl(values.url);
  const timeoutMs = requestTimeout(values.timeout);
  const port = Number(values.port ?? 4821);
  // Number() reads '' as 0 (any free port) and '0x10' as 16: only digits are a port.
  const digits = values.port === undefined || /^\d+$/.test(String(values.port));
  if (!digits || !Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new UsageError(`--port must be a port number, not ${values.port}`);
  }
  const idleSeconds = Number(values['session-idle'] ?? 1800);
  if (!Number.isFinite(idleSeconds) || idleSeconds <= 0) {
    throw new UsageError(
      `--session-idle must be a positive number of seconds, not ${values['session-idle']}`,
    );
  }
  const maxSessionsPerCredential = positiveCount(values, 'max-sessions-per-credential', 32);
  const maxSessions = positiveCount(values, 'max-sessions', 1024);
  const allowOrigins = values['allow-origin'] as unknown as string[] | undefined;
  const servers = await serversFrom(values, command);
  const clientToken = values.http ? null : required(values.token, 'AIRLOCK_TOKEN', '--token');
  refuseUnreadRules(values.rules, clientToken);
  const stopped = untilSignal();
  const gateway = await startGateway({
    url,
    workspaceId: required(values.workspace, 'AIRLOCK_WORKSPACE', '--workspace'),
    executorToken: required(values['executor-token'], 'AIRLOCK_EXECUTOR_TOKEN', '--executor-token'),
    agentToken: (values['agent-token'] as string | undefined) ?? process.env.AIRLOCK_AGENT_TOKEN,
    servers,
    memberPolicy: typeof values.rules === 'string' ? await readPolicy(values.rules) : undefined,
    awaitCommits: values['await-commits'] === true,
    timeoutMs,
    onError: logFailure,
  });
  logRegistration(gateway.bridge);
  let status = 0;
  // Its bridge's executor ended by itself (its credential revoked): no granted call would run.
  const bridgeEnded = gateway.bridge.ended.then(
    (error) => new Error(`the executor stopped serving: ${error.message}`),
  );
  try {
    if (clientToken !== null) {
      const { ended } = await gateway.serveStdio(clientToken);
      log(`serving ${gateway.bridge.tools.size} tools on stdio`);
      // The client's end (stdin closed, a broken stream, a line over the limit) ends the gateway.
      const end = await Promise.race([ended, stopped.then(() => null), bridgeEnded]);
      if (end) {
        log(`${end.message}; shutting down`);
        status = 1;
      }
    } else {
      const front = await gateway.listenHttp({
        host: values.host as string | undefined,
        port,
        allowOrigins,
        sessionIdleMs: idleSeconds * 1000,
        maxSessionsPerCredential,
        maxSessions,
      });
      log(`serving ${gateway.bridge.tools.size} tools at ${front.url}`);
      const end = await Promise.race([stopped.then(() => null), bridgeEnded]);
      if (end) {
        log(`${end.message}; shutting down`);
        status = 1;
      }
    }
  } finally {
    await gateway.close();
  }
  return status;
}

/** Runs `executor` or `gateway` (the words after `airlock-mcp`, or after `airlock … mcp`). */
export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === 'executor') return await executorCommand(rest);
    if (command === 'gateway') return await gatewayCommand(rest);
    const help = `${EXECUTOR_HELP}\n${GATEWAY_HELP}`;
    if (command === undefined || command === '--help' || command === '-h') {
      process.stdout.write(help);
      return 0;
    }
    // A usage error: on stderr, as every other one, so a script's output holds none of it.
    log(`unknown command ${command}`);
    process.stderr.write(`\n${help}`);
    return 2;
  } catch (error) {
    if (error instanceof UsageError) {
      // Named as typed (`airlock gateway mcp`, which `airlock-mcp gateway` is too).
      const named = `airlock ${command} mcp`;
      const help = error.seeHelp ? ` (see ${named} --help)` : '';
      process.stderr.write(`${named}: ${forTerminal(`${error.message}${help}`)}\n`);
      return error.status;
    }
    if (isDeadlineExceededError(error)) {
      log(`${error.message} (--timeout or AIRLOCK_TIMEOUT waits longer)`);
      return 1;
    }
    if (isConnectionError(error)) {
      log(error.detail);
      return 1;
    }
    if (hasErrorCode(error)) {
      const [first = '', ...problems] = refusalLines(error);
      log(`the kernel refused: ${first}`, ...problems);
      return 1;
    }
    log((error as Error).message);
    return 1;
  }
}

const invoked = process.argv[1] ? realpathSync(process.argv[1]) : '';
if (invoked === fileURLToPath(import.meta.url)) {
  // Exits once stdout has taken the last answer: writes to a pipe are asynchronous.
  main(process.argv.slice(2)).then((code) =>
    process.stdout.write('', () => process.stderr.write('', () => process.exit(code))),
  );
}
