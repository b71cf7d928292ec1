import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_WAIT_MS, waitMsProblem } from './wait-limits.js';

/** What the hook client reads: where the kernel is, its credential, how long to wait. */
export interface HookConfig {
  url: string;
  token: string;
  waitMs: number;
}

/** The default file `airlock hooks install` writes (mode 0600). */
export function defaultConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.AIRLOCK_HOOKS_CONFIG ?? join(env.HOME ?? homedir(), '.airlock', 'hooks.json');
}

/**
 * Reads the configuration: `AIRLOCK_URL` and `AIRLOCK_TOKEN` (or
 * `AIRLOCK_TOKEN_FILE`) when set, else the JSON file (`url`, `token` or
 * `token_file`, `wait_ms`).
 * @throws Error naming what is missing, or a `wait_ms` the hook could not
 * keep within the agent's hook timeout (see `waitMsProblem`).
 */
export function readHookConfig(
  path: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): HookConfig {
  const file = path ?? defaultConfigPath(env);
  let stored: { url?: unknown; token?: unknown; token_file?: unknown; wait_ms?: unknown } = {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new Error('it is not a JSON object');
    }
    stored = parsed as typeof stored;
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOENT') {
      throw new Error(`cannot read the hooks configuration ${file}: ${(error as Error).message}`);
    }
  }
  for (const key of ['url', 'token', 'token_file'] as const) {
    if (stored[key] !== undefined && typeof stored[key] !== 'string') {
      throw new Error(`"${key}" in ${file} is not a string`);
    }
  }
  const named = stored as { url?: string; token?: string; token_file?: string };
  const url = env.AIRLOCK_URL ?? named.url;
  const tokenFile = env.AIRLOCK_TOKEN_FILE ?? named.token_file;
  const token =
    env.AIRLOCK_TOKEN ??
    named.token ??
    (tokenFile ? readFileSync(tokenFile, 'utf8').trim() : undefined);
  if (!url) throw new Error(`no kernel URL: set AIRLOCK_URL or "url" in ${file}`);
  if (!token) throw new Error(`no agent credential: set AIRLOCK_TOKEN or "token" in ${file}`);
  const waitMs = stored.wait_ms ?? DEFAULT_WAIT_MS;
  const waitProblem = waitMsProblem(waitMs, `"wait_ms" in ${file}`);
  if (waitProblem) throw new Error(waitProblem);
  return { url, token, waitMs: waitMs as number };
}
