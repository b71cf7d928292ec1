import { parseArgs } from 'node:util';
import { forTerminal } from '@airlock/core';
import pino, { type Logger } from 'pino';
import { type Airlock, startAirlock } from '../airlock.js';
import { settleFirstSteps } from '../api/runs.js';
import { createStandaloneRun } from '../kernel/verbs/runs.js';
import { LOG_REDACTION } from '../logging/redact.js';
import {
  loadNotificationsConfig,
  type NotificationsConfig,
  NotificationsConfigError,
} from '../notifications/config.js';
import { DataDirInUseError } from '../store/sqlite/kernel-lock.js';
import { selfCommand } from './existing-store.js';
import { ensureLocalWorkspace } from './local-workspace.js';
import {
  checkListenHost,
  readServeSettings,
  type ServeSettings,
  ServeUsageError,
} from './serve-options.js';
import { listenForStop } from './stop-signal.js';

/** `airlock serve --help` */
export const SERVE_HELP = `Usage: airlock serve [options]

Starts the Airlock kernel: REST, tRPC, OpenAPI (GET /openapi.json), the
lifecycle feed and the executor cable over WebSocket.

Options:
  --port <n>            TCP port (env AIRLOCK_PORT; default 4820; 0 picks a free one)
  --host <addr>         Address to listen on (env AIRLOCK_HOST; default 127.0.0.1)
  --data-dir <dir>      SQLite data directory (env AIRLOCK_DATA_DIR; default ./.airlock)
  --database-url <url>  PostgreSQL URL; overrides --data-dir (env DATABASE_URL)
  --durability <mode>   full: an answer that reports a change waits until it is on
                        disk (survives power loss); relaxed: it may not (faster)
                        (env AIRLOCK_DURABILITY; default full; see docs/operations.md)
  --park-ttl <dur>      How long a parked call waits for a person before it
                        expires, e.g. 24h, 30m, 90s (env AIRLOCK_PARK_TTL; default 24h)
  --lease <dur>         Default executor lease (env AIRLOCK_LEASE; default 30s)
  --body-limit <bytes>  Largest request body, 1024 to 1073741824 (env AIRLOCK_BODY_LIMIT;
                        default 1048576; an agent's hook event is read up to 16 MiB
                        whatever this says)
  --request-timeout <dur>  A request's headers and body must arrive within this
                        (env AIRLOCK_REQUEST_TIMEOUT; default 30s)
  --headers-timeout <dur>  Its headers must arrive within this (env AIRLOCK_HEADERS_TIMEOUT; default 10s)
  --idle-timeout <dur>  An idle keep-alive connection closes after this (env AIRLOCK_IDLE_TIMEOUT; default 65s)
  --rate-limit <spec>   Requests per credential on the agent and member planes:
                        N per second with a burst of B as N/B (e.g. 100/500), or off
                        (env AIRLOCK_RATE_LIMIT; default off on SQLite, 100/500 on PostgreSQL)
  --max-feeds <n>       Live feeds (WebSocket feeds and cables, tRPC subscriptions)
                        one credential may hold open in this kernel, or off; past it
                        a new one is refused 429 (env AIRLOCK_MAX_FEEDS; default 1000)
  --auth-failure-limit <spec>  Failed authentications per peer address on every
                        surface, as N/B (N per second after a burst of B), or off
                        (env AIRLOCK_AUTH_FAILURE_LIMIT; default 1/20 on every store)
  --retention-export-dir <dir>  Where retention writes what it prunes, as JSON lines
                        (env AIRLOCK_RETENTION_EXPORT_DIR; default <data-dir>/exports,
                        ./airlock-exports on PostgreSQL)
  --retention-interval <dur>  How often the kernel applies retention policies
                        (env AIRLOCK_RETENTION_INTERVAL; default 1m)
  --retention-pace <share>  The share of time a pruning pass works, a decimal
                        from 0.01 to 1; it rests the rest, so requests keep their
                        latency while a backlog is pruned (env AIRLOCK_RETENTION_PACE;
                        default 0.25; 1 never rests)
  --metrics-listen <host:port>  Also serve GET /metrics (Prometheus) without
                        credentials on this address; keep it private (env AIRLOCK_METRICS_LISTEN).
                        On the main port, /metrics needs a member credential.
  --no-metrics          Record no metrics (GET /metrics answers 404)
  --otlp-endpoint <url> Export the spans of calls over OTLP/HTTP to this base URL
                        (env OTEL_EXPORTER_OTLP_ENDPOINT; default off)
  --model-timeout <dur> The longest the openai provider may take for one round
                        before the run fails (env AIRLOCK_MODEL_TIMEOUT; default 2m);
                        on PostgreSQL another kernel takes a run's turn over only
                        after this and 30 s more
  --model-max-calls <n> The most tool calls one answer of the openai provider may
                        ask for, 1 to 1024; an answer asking more fails the run
                        provider_too_many_calls (env AIRLOCK_MODEL_MAX_CALLS; default 128)
  --model-base-urls <list>  Comma-separated base URLs a run's provider.base_url
                        may name besides OPENAI_BASE_URL, or * for any (unsafe where
                        the kernel can reach internal services); a run naming another
                        is refused 422 (env AIRLOCK_MODEL_BASE_URLS; default none)
  --log-level <level>   pino level: fatal, error, warn, info, debug (env AIRLOCK_LOG_LEVEL; default info)
  --notifications <file>  Notification channels and routing (webhooks, Slack,
                        email) as JSON (env AIRLOCK_NOTIFICATIONS; default none);
                        see docs/notifications.md
  --no-demo             Do not start the demo run on first start
  -h, --help            Show this help

Durations take their unit: ms, s, m, h or d. Flags win over the environment;
an empty variable counts as unset. A value a setting cannot take stops serve
with exit 2 before anything opens; a data directory another live kernel
serves (its kernel.lock), with exit 3.

On first start it creates a local workspace, prints an agent, an executor and
a member token (shown once), and starts a demo run that parks one call.
The openai provider reads OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL.
`;

/** An exact `ls` is granted; a prefix glob (`ls*`) would also grant `ls; rm -r build`. */
const DEMO_RULES = [
  { tool: 'bash', path: 'command', match: 'ls', verdict: 'allow' },
  { tool: 'bash', path: 'command', match: 'ls -la', verdict: 'allow' },
  { tool: 'bash', path: 'command', match: '*rm -rf*', verdict: 'ask' },
];

/** The exit code of a serve refused because another live kernel serves its data directory. */
export const DATA_DIR_IN_USE_EXIT = 3;

/** Says why a start was refused when another kernel holds the data directory (null); rethrows anything else. */
function refuseHeldDataDir(error: unknown): null {
  if (!(error instanceof DataDirInUseError)) throw error;
  process.stderr.write(`airlock serve: ${error.code}: ${error.message}\n`);
  return null;
}

/**
 * Reads `airlock serve`'s flags.
 * @throws ServeUsageError on an unknown flag or a missing value.
 */
function parseServeArgs(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'data-dir': { type: 'string' },
        'database-url': { type: 'string' },
        durability: { type: 'string' },
        'park-ttl': { type: 'string' },
        lease: { type: 'string' },
        'body-limit': { type: 'string' },
        'request-timeout': { type: 'string' },
        'headers-timeout': { type: 'string' },
        'idle-timeout': { type: 'string' },
        'rate-limit': { type: 'string' },
        'max-feeds': { type: 'string' },
        'auth-failure-limit': { type: 'string' },
        'log-level': { type: 'string' },
        'retention-export-dir': { type: 'string' },
        'retention-interval': { type: 'string' },
        'retention-pace': { type: 'string' },
        'metrics-listen': { type: 'string' },
        'no-metrics': { type: 'boolean' },
        'otlp-endpoint': { type: 'string' },
        'model-timeout': { type: 'string' },
        'model-max-calls': { type: 'string' },
        'model-base-urls': { type: 'string' },
        'no-demo': { type: 'boolean' },
        notifications: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (error) {
    throw new ServeUsageError(`${(error as Error).message} (airlock serve --help lists the flags)`);
  }
}

/** Runs `airlock serve`; resolves when the server has stopped. */
export async function serve(argv: string[]): Promise<number> {
  let values: ReturnType<typeof parseServeArgs>;
  let settings: ServeSettings;
  let notifications: NotificationsConfig | undefined;
  try {
    values = parseServeArgs(argv);
    if (values.help) {
      process.stdout.write(SERVE_HELP);
      return 0;
    }
    settings = readServeSettings(values, process.env);
    await checkListenHost(settings);
    // A file the setting names that cannot be used is a setting it cannot take: exit 2, before
    // anything opens, each problem on its own line.
    notifications = settings.notificationsFile
      ? loadNotificationsConfig(settings.notificationsFile)
      : undefined;
  } catch (error) {
    if (!(error instanceof ServeUsageError || error instanceof NotificationsConfigError)) {
      throw error;
    }
    const lines = error.message.split('\n').map(forTerminal);
    process.stderr.write(`airlock serve: ${lines.join('\n')}\n`);
    return 2;
  }
  const { durability } = settings;
  const env = process.env;
  const logger = pino({ level: settings.logLevel, redact: LOG_REDACTION });
  const stop = listenForStop(logger);
  const airlock = await startAirlock({
    notifications,
    port: settings.port,
    host: settings.host,
    dataDir: settings.dataDir,
    databaseUrl: settings.databaseUrl,
    durability,
    parkTtlMs: settings.parkTtlMs,
    defaultLeaseMs: settings.defaultLeaseMs,
    bodyLimit: settings.bodyLimit,
    logger,
    rateLimit: settings.rateLimit,
    maxFeeds: settings.maxFeeds,
    authFailureLimit: settings.authFailureLimit,
    timeouts: settings.timeouts,
    retention: settings.retention,
    metrics: !values['no-metrics'],
    metricsListen: settings.metricsListen,
    otlpEndpoint: settings.otlpEndpoint,
    openai: {
      baseUrl: settings.openaiBaseUrl,
      apiKey: env.OPENAI_API_KEY,
      model: env.OPENAI_MODEL,
      timeoutMs: settings.modelTimeoutMs,
      maxToolCalls: settings.modelMaxCalls,
      allowedBaseUrls: settings.modelBaseUrls,
    },
  }).catch(refuseHeldDataDir);
  if (!airlock) return DATA_DIR_IN_USE_EXIT;
  stop.started();
  if (stop.asked) {
    // Asked to stop while starting: no workspace, demo run or tokens for a kernel that is going.
    await shutDown(airlock, await stop.heard, logger);
    return 0;
  }
  logger.info(
    { url: airlock.url, store: airlock.store.description, durability },
    'airlock kernel listening',
  );
  if (airlock.metricsListener) {
    logger.info({ url: airlock.metricsListener.url }, 'metrics listening (no credentials)');
  }
  const local = await ensureLocalWorkspace(airlock.store);
  // The token commands read the same store: name it when it is not the default.
  const storeFlag =
    values['data-dir'] && !values['database-url'] ? ` --data-dir ${values['data-dir']}` : '';
  if (local.created && local.tokens) {
    const ws = `${airlock.url}/api/v1/workspaces/${local.workspaceId}`;
    const lines = [
      '',
      `Airlock is ready at ${airlock.url}  (API document: ${airlock.url}/openapi.json)`,
      `  workspace       ${local.workspaceId}`,
      `  agent token     ${local.tokens.agent}`,
      `  executor token  ${local.tokens.executor}`,
      `  member token    ${local.tokens.member}`,
      `These tokens are shown once; make more with \`${selfCommand()} token create --kind member${storeFlag}\`.`,
    ];
    if (!values['no-demo']) {
      const run = await createStandaloneRun(
        airlock.kernel.context,
        {
          credential_id: 'demo',
          kind: 'agent',
          workspace_id: local.workspaceId,
          agent_application_id: local.agentApplicationId,
          role: null,
        },
        {
          approval_mode: 'rules',
          approval_rules: DEMO_RULES,
          input: 'Clean the build directory.',
          provider: {
            kind: 'scripted',
            rounds: [
              { tool_calls: [{ name: 'bash', input: { command: 'rm -rf ./build' } }] },
              { final: 'The build directory is handled.' },
            ],
          },
        },
      );
      await settleFirstSteps(airlock.kernel, run);
      lines.push(
        '',
        `A demo run is waiting for your decision: run ${run.id}, task t1 wants \`bash rm -rf ./build\`.`,
        `  in the web inbox: open ${airlock.url}/ and sign in with the workspace and the member token`,
        `  from a terminal:  export AIRLOCK_URL=${airlock.url} AIRLOCK_WORKSPACE=${local.workspaceId} AIRLOCK_TOKEN=${local.tokens.member} AIRLOCK_EXECUTOR_TOKEN=${local.tokens.executor}`,
        `                    ${selfCommand()} decisions list; ${selfCommand()} decisions approve <run> <task>`,
        '  an approved call runs once an executor serves its tool (docs/getting-started.md, step 3)',
        `  see it:   curl -H "authorization: Bearer ${local.tokens.member}" ${ws}/runs/${run.id}/tasks/t1`,
        `  approve:  curl -X POST -H "authorization: Bearer ${local.tokens.member}" ${ws}/runs/${run.id}/tasks/t1/approve`,
        `  deny:     curl -X POST -H "authorization: Bearer ${local.tokens.member}" -H "content-type: application/json" -d '{"reason":"not today"}' ${ws}/runs/${run.id}/tasks/t1/deny`,
      );
    }
    process.stderr.write(`${lines.join('\n')}\n\n`);
  } else {
    process.stderr.write(
      [
        '',
        `Airlock is ready at ${airlock.url}  (API document: ${airlock.url}/openapi.json)`,
        `  workspace       ${local.workspaceId}  (tokens were shown when this store was created)`,
        `  a new token for a person:  ${selfCommand()} token create --kind member${storeFlag}`,
        '',
        '',
      ].join('\n'),
    );
  }
  await shutDown(airlock, await stop.heard, logger);
  return 0;
}

/** Stops serving, finishes in-flight steps and closes the store, saying so in the log. */
async function shutDown(airlock: Airlock, signal: string, logger: Logger): Promise<void> {
  logger.info({ signal }, 'shutting down');
  await airlock.close().catch((error: unknown) => logger.error({ err: error }, 'shutdown failed'));
  logger.info('stopped');
}
