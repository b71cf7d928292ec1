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
import { dataDirFailure } from './directory-setting.js';
import { selfCommand } from './existing-store.js';
import { ensureLocalWorkspace } from './local-workspace.js';
import type { ServeFlags } from './serve-args.js';
import {
  checkListenHost,
  readServeSettings,
  type ServeSettings,
  ServeUsageError,
} from './serve-options.js';
import { printedStoreOption } from './serve-store-option.js';
import { storeUnreachableLine } from './serve-store-unreachable.js';
import { listenForStop } from './stop-signal.js';

/** An exact `ls` is granted; a prefix glob (`ls*`) would also grant `ls; rm -r build`. */
const DEMO_RULES = [
  { tool: 'bash', path: 'command', match: 'ls', verdict: 'allow' },
  { tool: 'bash', path: 'command', match: 'ls -la', verdict: 'allow' },
  { tool: 'bash', path: 'command', match: '*rm -rf*', verdict: 'ask' },
];

/** What a start that could not reach its PostgreSQL store resolves with (it exits 1). */
const STORE_UNREACHABLE = Symbol('store unreachable');

/** What a start whose data directory could not be made or written in resolves with (it exits 2). */
const DATA_DIR_UNUSABLE = Symbol('data directory unusable');

/** The exit code of a serve refused because another live kernel serves its data directory. */
export const DATA_DIR_IN_USE_EXIT = 3;

/** Says why a start was refused when another kernel holds the data directory (null); rethrows anything else. */
function refuseHeldDataDir(error: unknown): null {
  if (!(error instanceof DataDirInUseError)) throw error;
  process.stderr.write(`airlock serve: ${error.code}: ${error.message}\n`);
  return null;
}

/**
 * Starts the kernel `airlock serve`'s flags (read by serve.ts) and the
 * environment say, once every setting is checked; resolves with the exit
 * code when the server has stopped.
 */
export async function startServe(values: ServeFlags): Promise<number> {
  let settings: ServeSettings;
  let notifications: NotificationsConfig | undefined;
  try {
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
  }).catch((error: unknown) => {
    const unusable = settings.databaseUrl
      ? null
      : dataDirFailure(error, settings.dataDir, settings.dataDirSource);
    if (unusable !== null) {
      process.stderr.write(`airlock serve: ${forTerminal(unusable)}\n`);
      return DATA_DIR_UNUSABLE;
    }
    const unreachable = storeUnreachableLine(error, settings.databaseUrl);
    if (unreachable === null) return refuseHeldDataDir(error);
    process.stderr.write(`${unreachable}\n`);
    return STORE_UNREACHABLE;
  });
  // A data directory it cannot make is a value its setting cannot take: exit 2, as when found before.
  if (airlock === DATA_DIR_UNUSABLE) return 2;
  if (airlock === STORE_UNREACHABLE) return 1;
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
  // The token commands must open the same store: name it unless it is the default.
  const storeFlag = printedStoreOption(settings);
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
      // With or without the demo, the operator commands and the SDK read these variables.
      `From a terminal:  export AIRLOCK_URL=${airlock.url} AIRLOCK_WORKSPACE=${local.workspaceId} AIRLOCK_TOKEN=${local.tokens.member} AIRLOCK_EXECUTOR_TOKEN=${local.tokens.executor}`,
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
        `  from a terminal (the variables above exported):  ${selfCommand()} decisions list; ${selfCommand()} decisions approve ${run.id} t1`,
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
        '  (an approver, who decides calls; add --role admin for one who also manages the workspace)',
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
