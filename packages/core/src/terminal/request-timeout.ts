import { parseDuration } from './durations.js';
import { SettingError } from './setting-error.js';

/** How long a kernel request waits for its answer unless told otherwise (the SDK's default too). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** The bounds of a request timeout: 100 ms to 1 h. */
const REQUEST_TIMEOUT_BOUNDS = { min: 100, max: 3_600_000 };

/** How long each request to the kernel waits, and where that came from. */
export interface RequestTimeout {
  readonly timeoutMs: number;
  readonly source: '--timeout' | 'AIRLOCK_TIMEOUT' | 'default';
}

/**
 * Reads how long each request to the kernel waits for its answer: `--timeout`,
 * else AIRLOCK_TIMEOUT in `env` (an empty or blank one is unset), else
 * {@link DEFAULT_REQUEST_TIMEOUT_MS}; a duration with its unit (`30s`, `500ms`,
 * `2m`). Pure: the caller hands in the environment.
 * @throws SettingError (`invalid_timeout`) naming the flag or variable when
 *   the value is not a duration with its unit from 100ms to 1h.
 */
export function readRequestTimeout(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): RequestTimeout {
  const fromEnv = env.AIRLOCK_TIMEOUT ?? '';
  if (flag === undefined && fromEnv.trim() === '') {
    return { timeoutMs: DEFAULT_REQUEST_TIMEOUT_MS, source: 'default' };
  }
  const [text, source]: [string, RequestTimeout['source']] =
    flag !== undefined ? [flag, '--timeout'] : [fromEnv, 'AIRLOCK_TIMEOUT'];
  try {
    return { timeoutMs: parseDuration(text, source, REQUEST_TIMEOUT_BOUNDS), source };
  } catch (error) {
    throw new SettingError('invalid_timeout', source, (error as Error).message);
  }
}
