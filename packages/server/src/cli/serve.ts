import { forTerminal } from '@airlock/core/command-line';
import { parseServeArgs } from './serve-args.js';

/** `airlock serve --help` */
export const SERVE_HELP = `Usage: airlock serve [options]

Starts the Airlock kernel: REST, tRPC, OpenAPI (GET /openapi.json), the
lifecycle feed and the executor cable over WebSocket.

Options:
  --port <n>            TCP port (env AIRLOCK_PORT; default 4820; 0 picks a free one)
  --host <addr>         Address to listen on (env AIRLOCK_HOST; default 127.0.0.1)
  --data-dir <dir>      SQLite data directory, made if missing (env AIRLOCK_DATA_DIR;
                        default ./.airlock)
  --database-url <url>  PostgreSQL URL; overrides --data-dir (env DATABASE_URL)
  --durability <mode>   full: an answer that reports a change waits until it is on
                        disk (survives power loss); relaxed: it may not (faster)
                        (env AIRLOCK_DURABILITY; default full; see docs/durability.md)
  --park-ttl <dur>      How long a parked call waits for a person before it
                        expires, e.g. 24h, 30m, 90s (env AIRLOCK_PARK_TTL; default 24h)
  --lease <dur>         Default executor lease (env AIRLOCK_LEASE; default 30s)
  --body-limit <bytes>  Largest request body, 1024 to 536870888 (env AIRLOCK_BODY_LIMIT;
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
  --retention-export-dir <dir>  Where retention writes what it prunes, as JSON lines;
                        made if missing, and refused at start when serve cannot write there
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
  --log-level <level>   pino level: fatal, error, warn, info, debug, trace, silent
                        (env AIRLOCK_LOG_LEVEL; default info)
  --notifications <file>  Notification channels and routing (webhooks, Slack,
                        email) as JSON (env AIRLOCK_NOTIFICATIONS; default none);
                        see docs/notifications.md
  --no-demo             Do not start the demo run on first start
  -h, --help            Show this help

Durations take their unit: ms, s, m, h or d. Flags win over the environment;
an empty variable counts as unset. A value a setting cannot take stops serve
with exit 2 before anything opens; a data directory another live kernel
serves (its kernel.lock), with exit 3; any other failed start (a port another
process listens on, a store it cannot reach), with exit 1.

On first start it creates a local workspace, prints an agent, an executor and
a member token (shown once) with the export line that hands them to the
operator commands, and starts a demo run that parks one call.
The openai provider reads OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL.
`;

/** Runs `airlock serve`; resolves when the server has stopped. */
export async function serve(argv: string[]): Promise<number> {
  const flags = parseServeArgs(argv);
  if ('refused' in flags) {
    process.stderr.write(
      `airlock serve: ${flags.refused.split('\n').map(forTerminal).join('\n')}\n`,
    );
    return 2;
  }
  if (flags.help) {
    process.stdout.write(SERVE_HELP);
    return 0;
  }
  // The kernel, its store drivers and its HTTP stack load only for a command line that can run.
  const { startServe } = await import('./serve-start.js');
  return startServe(flags);
}
