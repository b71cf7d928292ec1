import { constants } from 'node:buffer';
import { lookup } from 'node:dns/promises';
import { type DurationBounds, parseDuration } from '@airlock/core';
import type { RateLimitOptions } from '../api/rate-limit.js';
import { DEFAULT_MAX_FEEDS } from '../feed/credential-watch.js';
import type { ServerTimeouts } from '../http-server.js';
import { DEFAULT_PARK_TTL_MS } from '../kernel/kernel.js';
import { parsePruningPace } from '../kernel/retention/pruning-pace.js';
import { ANY_BASE_URL, baseUrlKey } from '../providers/base-urls.js';
import { type Durability, parseDurability } from '../store/durability.js';
import { parseOtlpEndpoint } from '../tracing/start-tracing.js';
import { environmentSetting } from './command-line.js';
import { postgresUrlProblem } from './database-url.js';
import {
  DEFAULT_DATA_DIR,
  DEFAULT_DATA_DIR_SOURCE,
  directoryProblem,
  mkdirProblem,
} from './directory-setting.js';
import { parseListenAddress, probeListen } from './listen-address.js';
import { shownUrl, shownValue } from './shown-value.js';
import { plainWholeNumber } from './whole-number.js';

/** A flag or variable of `airlock serve` with a value it cannot take: exit 2, before anything opens. */
export class ServeUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServeUsageError';
  }
}

/** What `airlock serve`'s flags and environment say, checked. */
export interface ServeSettings {
  port: number;
  host: string;
  /** Where the host came from (`--host`, `AIRLOCK_HOST`, or the default), to name it in a refusal. */
  hostSource: string;
  dataDir: string;
  /** Where the data directory came from (`--data-dir`, `AIRLOCK_DATA_DIR`, or the default), to name it in a refusal. */
  dataDirSource: string;
  databaseUrl: string | undefined;
  durability: Durability;
  parkTtlMs: number;
  defaultLeaseMs: number | undefined;
  bodyLimit: number;
  timeouts: Partial<ServerTimeouts>;
  rateLimit: RateLimitOptions | null | undefined;
  /** Live feeds one credential may hold open (Infinity: off). */
  maxFeeds: number;
  authFailureLimit: RateLimitOptions | null | undefined;
  retention: { exportDir: string | undefined; intervalMs: number | undefined; pace: number };
  metricsListen: { host: string; port: number } | undefined;
  /** Where the metrics address came from (`--metrics-listen` or `AIRLOCK_METRICS_LISTEN`). */
  metricsListenSource: string;
  otlpEndpoint: string | undefined;
  /** The longest one round of the openai provider may take (`--model-timeout`). */
  modelTimeoutMs: number | undefined;
  /** The most tool calls one completion of the openai provider may ask for (`--model-max-calls`). */
  modelMaxCalls: number | undefined;
  /** The openai provider's endpoint (`OPENAI_BASE_URL`), checked: an http(s) URL without credentials. */
  openaiBaseUrl: string | undefined;
  /** The base URLs a run may name besides `openaiBaseUrl` (`--model-base-urls`); `*` is any. */
  modelBaseUrls: string[] | undefined;
  notificationsFile: string | undefined;
  logLevel: string;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const DAY = 86_400_000;
/** Timers past 2^31-1 ms (24.8 days) fire at once in Node: no duration that feeds one may pass it. */
const TIMER_DAYS = 24 * DAY;
const BOUNDS: Record<string, DurationBounds> = {
  'park-ttl': { min: 100, max: 365 * DAY },
  // A claim may ask for 1 s to 1 d (core's LeaseSchema): the default it gets stays in that range.
  lease: { min: 1000, max: DAY },
  'request-timeout': { min: 100, max: DAY },
  'headers-timeout': { min: 100, max: DAY },
  'idle-timeout': { min: 100, max: TIMER_DAYS },
  'retention-interval': { min: 100, max: DAY },
  'model-timeout': { min: 1000, max: DAY },
};
/**
 * A body is decoded into one string, and V8 makes none longer than this (api/request-body.ts's
 * MAX_READABLE_BODY, 536870888 bytes on 64-bit Node): a larger limit could never be met.
 */
const BODY_LIMIT = { min: 1024, max: constants.MAX_STRING_LENGTH };
/** The highest `--model-max-calls`: each call is a row planted in the round's one transaction. */
const MODEL_MAX_CALLS_LIMIT = 1024;

/** A value and where it came from (the flag or the variable), to name it in a refusal. */
interface Setting {
  text: string;
  source: string;
}

type Values = Record<string, string | boolean | undefined>;

/**
 * A setting from its flag, else its environment variable. An empty variable
 * counts as unset (`AIRLOCK_HOST=` is the default host, not every interface);
 * an empty flag is refused.
 */
function setting(
  values: Values,
  env: NodeJS.ProcessEnv,
  flag: string,
  variable: string,
): Setting | undefined {
  const given = values[flag];
  if (typeof given === 'string') {
    if (given.trim() === '') {
      throw new ServeUsageError(`--${flag} is empty: give it a value, or leave the flag out`);
    }
    return { text: given, source: `--${flag}` };
  }
  const text = environmentSetting(env, variable);
  return text === undefined ? undefined : { text, source: variable };
}

/** Runs a parser, its error becoming a usage error. */
function checked<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw new ServeUsageError((error as Error).message);
  }
}

function wholeNumber(found: Setting, min: number, max: number, what: string): number {
  const value = plainWholeNumber(found.text.trim(), min, max);
  if (value === null) {
    throw new ServeUsageError(`${found.source} wants ${what}, not "${found.text}"`);
  }
  return value;
}

function duration(values: Values, env: NodeJS.ProcessEnv, flag: string, variable: string) {
  const found = setting(values, env, flag, variable);
  return found && checked(() => parseDuration(found.text, found.source, BOUNDS[flag]));
}

/**
 * Checks a model base URL: an http(s) URL without a user name or password
 * (Node.js's fetch refuses such a URL, so every run would fail, and the
 * refusal quotes it), and without a query or fragment (the provider adds
 * `/chat/completions` to the base URL, which after a `?` or `#` would land
 * in the query or fragment instead of the path, so every run would fail).
 * @throws ServeUsageError naming `source`, the URL shown without its
 *   credentials, and without its query or fragment (which may hold a key).
 */
function modelBaseUrl(text: string, source: string): string {
  const query = text.search(/[?#]/);
  if (query !== -1 && baseUrlKey(text.slice(0, query)) !== null) {
    throw new ServeUsageError(
      `${source} wants a base URL without a query or fragment (the provider adds /chat/completions to it), not "${shownUrl(text)}"`,
    );
  }
  if (baseUrlKey(text) === null) {
    throw new ServeUsageError(
      `${source} wants an http(s) URL without a user name or password (the key goes in OPENAI_API_KEY), not "${shownUrl(text)}"`,
    );
  }
  return text;
}

/**
 * Reads `--data-dir`: a directory serve can write in, or a path where one can
 * be made. A file there (or in place of one of its parents), or a directory
 * it may not write in, made serve fail later with only `EEXIST`, `ENOTDIR`,
 * `EACCES` or `ENOENT` from mkdir, exit 1; it is refused before anything opens.
 * @throws ServeUsageError naming the flag or variable and what is in the way.
 */
function dataDir(found: Setting | undefined): string {
  // The default is not checked here: on PostgreSQL no data directory is made.
  if (!found) return DEFAULT_DATA_DIR;
  const problem = directoryProblem(found.text);
  if (problem === null) return found.text;
  throw new ServeUsageError(
    `${found.source} wants a directory (made if missing), not "${found.text}": ${problem}`,
  );
}

/**
 * Reads `--retention-export-dir`: a directory this process can write in, or a
 * path where one can be made (as the kernel does on the first pass that prunes).
 * A file there, or a directory it may not write in, was only found by that
 * first pass, which then pruned nothing, with serve long started; it is refused
 * before anything opens. The default (under the data directory) is not checked:
 * it is made with the data directory.
 * @throws ServeUsageError naming the flag or variable and what is in the way.
 */
function retentionExportDir(found: Setting | undefined): string | undefined {
  if (!found) return undefined;
  const problem = directoryProblem(found.text) ?? mkdirProblem(found.text);
  if (problem === null) return found.text;
  throw new ServeUsageError(
    `${found.source} wants a directory serve can write in (made if missing), not "${found.text}": ${problem}`,
  );
}

/**
 * Checks `--database-url`: a `postgres://` or `postgresql://` URL. Anything
 * else (a MySQL `DATABASE_URL` another program set, a bare word) was handed
 * to the PostgreSQL driver, which read a host out of it and failed to reach it;
 * and one the driver can use (see postgresUrlProblem).
 * @throws ServeUsageError naming the flag or variable, the URL shown without its password.
 */
function databaseUrl(found: Setting | undefined): string | undefined {
  if (!found) return undefined;
  if (!/^postgres(?:ql)?:\/\//i.test(found.text.trim())) {
    throw new ServeUsageError(
      `${found.source} wants a postgres:// or postgresql:// URL, not "${shownUrl(found.text)}"`,
    );
  }
  const problem = postgresUrlProblem(found.text);
  if (problem === null) return found.text;
  throw new ServeUsageError(`${found.source} ${problem}`);
}

/**
 * Reads `--model-base-urls`: comma-separated base URLs a run's
 * `provider.base_url` may name, each checked as OPENAI_BASE_URL is, or `*`
 * for any; blank entries (a trailing comma) are skipped, but a list of none is refused.
 * @throws ServeUsageError naming the setting and the entry it cannot take.
 */
function modelBaseUrls(found: Setting | undefined): string[] | undefined {
  if (!found) return undefined;
  const entries = found.text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) {
    throw new ServeUsageError(
      `${found.source} wants comma-separated http(s) base URLs or ${ANY_BASE_URL}, not "${found.text}"`,
    );
  }
  return entries.map((entry) =>
    entry === ANY_BASE_URL ? entry : modelBaseUrl(entry, `${found.source} entry`),
  );
}

/**
 * Reads `--rate-limit` (or `source`, of the same form): `N/B` (N per second,
 * burst B), `N` (burst 5N) or `off`.
 * @throws Error on anything else.
 */
export function parseRateLimit(
  text: string | undefined,
  source = '--rate-limit',
): RateLimitOptions | null | undefined {
  if (text === undefined || text === '') return undefined;
  if (text === 'off') return null;
  const match = /^(\d+(?:\.\d+)?)(?:\/(\d+))?$/.exec(text);
  const perSecond = Number(match?.[1]);
  if (!match || !(perSecond > 0)) {
    throw new Error(`${source} wants N/B (per second / burst) or off, not ${shownValue(text)}`);
  }
  return { perSecond, burst: match[2] ? Math.max(1, Number(match[2])) : Math.ceil(perSecond * 5) };
}

/**
 * Reads and checks every setting of `airlock serve`: flags win over the
 * environment, empty variables are unset, numbers are whole and in range,
 * durations carry their unit.
 * @throws ServeUsageError naming the flag or variable and what it wants.
 */
export function readServeSettings(values: Values, env: NodeJS.ProcessEnv): ServeSettings {
  const get = (flag: string, variable: string) => setting(values, env, flag, variable);
  const port = get('port', 'AIRLOCK_PORT');
  const body = get('body-limit', 'AIRLOCK_BODY_LIMIT');
  const host = get('host', 'AIRLOCK_HOST');
  if (host && /\s/.test(host.text)) {
    throw new ServeUsageError(
      `${host.source} wants an address such as 127.0.0.1, not "${host.text}"`,
    );
  }
  const durabilityText = get('durability', 'AIRLOCK_DURABILITY');
  const paceText = get('retention-pace', 'AIRLOCK_RETENTION_PACE');
  const metrics = get('metrics-listen', 'AIRLOCK_METRICS_LISTEN');
  const otlp = get('otlp-endpoint', 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const rate = get('rate-limit', 'AIRLOCK_RATE_LIMIT');
  const maxFeeds = get('max-feeds', 'AIRLOCK_MAX_FEEDS');
  const authLimit = get('auth-failure-limit', 'AIRLOCK_AUTH_FAILURE_LIMIT');
  const logLevel = get('log-level', 'AIRLOCK_LOG_LEVEL');
  const maxCalls = get('model-max-calls', 'AIRLOCK_MODEL_MAX_CALLS');
  const openaiUrl = environmentSetting(env, 'OPENAI_BASE_URL');
  const dataDirSetting = get('data-dir', 'AIRLOCK_DATA_DIR');
  if (values['no-metrics'] === true && metrics) {
    throw new ServeUsageError(
      `--no-metrics records no metrics, so ${metrics.source} would serve nothing: give one or the other`,
    );
  }
  if (logLevel && !LOG_LEVELS.includes(logLevel.text)) {
    throw new ServeUsageError(
      `${logLevel.source} wants one of ${LOG_LEVELS.join(', ')}, not "${logLevel.text}"`,
    );
  }
  return {
    port: port ? wholeNumber(port, 0, 65_535, 'a port number from 0 to 65535') : 4820,
    host: host?.text ?? '127.0.0.1',
    hostSource: host?.source ?? '--host',
    dataDir: dataDir(dataDirSetting),
    dataDirSource: dataDirSetting?.source ?? DEFAULT_DATA_DIR_SOURCE,
    databaseUrl: databaseUrl(get('database-url', 'DATABASE_URL')),
    durability: checked(() => parseDurability(durabilityText?.text, durabilityText?.source)),
    parkTtlMs: duration(values, env, 'park-ttl', 'AIRLOCK_PARK_TTL') ?? DEFAULT_PARK_TTL_MS,
    defaultLeaseMs: duration(values, env, 'lease', 'AIRLOCK_LEASE'),
    bodyLimit: body
      ? wholeNumber(
          body,
          BODY_LIMIT.min,
          BODY_LIMIT.max,
          `a number of bytes from ${BODY_LIMIT.min} to ${BODY_LIMIT.max} (the largest body the kernel can read)`,
        )
      : 1024 * 1024,
    timeouts: {
      requestMs: duration(values, env, 'request-timeout', 'AIRLOCK_REQUEST_TIMEOUT'),
      headersMs: duration(values, env, 'headers-timeout', 'AIRLOCK_HEADERS_TIMEOUT'),
      idleMs: duration(values, env, 'idle-timeout', 'AIRLOCK_IDLE_TIMEOUT'),
    },
    rateLimit: checked(() => parseRateLimit(rate?.text, rate?.source)),
    maxFeeds: !maxFeeds
      ? DEFAULT_MAX_FEEDS
      : maxFeeds.text.trim() === 'off'
        ? Number.POSITIVE_INFINITY
        : wholeNumber(maxFeeds, 1, 1_000_000, 'a number of feeds from 1 to 1000000, or off'),
    authFailureLimit: checked(() => parseRateLimit(authLimit?.text, authLimit?.source)),
    retention: {
      exportDir: retentionExportDir(get('retention-export-dir', 'AIRLOCK_RETENTION_EXPORT_DIR')),
      intervalMs: duration(values, env, 'retention-interval', 'AIRLOCK_RETENTION_INTERVAL'),
      pace: checked(() => parsePruningPace(paceText?.text, paceText?.source)),
    },
    metricsListen: metrics && checked(() => parseListenAddress(metrics.text, metrics.source)),
    metricsListenSource: metrics?.source ?? '--metrics-listen',
    otlpEndpoint:
      otlp &&
      checked(() => {
        parseOtlpEndpoint(otlp.text, otlp.source);
        return otlp.text;
      }),
    modelTimeoutMs: duration(values, env, 'model-timeout', 'AIRLOCK_MODEL_TIMEOUT'),
    openaiBaseUrl: openaiUrl && modelBaseUrl(openaiUrl, 'OPENAI_BASE_URL'),
    modelBaseUrls: modelBaseUrls(get('model-base-urls', 'AIRLOCK_MODEL_BASE_URLS')),
    modelMaxCalls:
      maxCalls &&
      wholeNumber(
        maxCalls,
        1,
        MODEL_MAX_CALLS_LIMIT,
        `a number of calls from 1 to ${MODEL_MAX_CALLS_LIMIT}`,
      ),
    notificationsFile: get('notifications', 'AIRLOCK_NOTIFICATIONS')?.text,
    logLevel: logLevel?.text ?? 'info',
  };
}

/**
 * Checks that serve can listen where it is told, before anything opens
 * (otherwise the store was created and the listen then failed): the host
 * names an address (`256.1.1.1` or a name no resolver knows does not) and
 * this machine has it (`--host 192.0.2.1` on a machine without it: a probe
 * listen, closed at once); the same for `--metrics-listen`. A port another
 * process holds is left to the real listen (exit 1, EADDRINUSE), after the
 * data directory's lock, which says more when that process is its kernel.
 * @throws ServeUsageError naming the flag or variable.
 */
export async function checkListenHost(
  settings: Pick<ServeSettings, 'host' | 'hostSource' | 'metricsListen' | 'metricsListenSource'>,
) {
  try {
    await lookup(settings.host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ServeUsageError(
      `${settings.hostSource} wants an address such as 127.0.0.1 or a name this machine resolves, not "${settings.host}"${code ? ` (${code})` : ''}`,
    );
  }
  // Port 0: whether this machine has the address, whoever holds the port.
  if ((await probeListen(settings.host, 0))?.code === 'EADDRNOTAVAIL') {
    throw notOnThisMachine(settings.hostSource, settings.host);
  }
  const metrics = settings.metricsListen;
  if (metrics && (await probeListen(metrics.host, 0))?.code === 'EADDRNOTAVAIL') {
    throw notOnThisMachine(settings.metricsListenSource, metrics.host);
  }
}

function notOnThisMachine(source: string, host: string): ServeUsageError {
  return new ServeUsageError(
    `${source} wants an address this machine has (127.0.0.1, 0.0.0.0 for every interface, or one of its own), not "${host}" (EADDRNOTAVAIL)`,
  );
}
