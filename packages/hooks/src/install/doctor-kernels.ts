import { readFileSync } from 'node:fs';
import type { HookedAgent } from '@airlock/core';
import { readHookConfig } from '../client/config.js';
import { ANSWER_BYTES_MAX } from '../client/kernel-call.js';
import { airlockCommandOf } from './command-shape.js';
import { codexHookGroups } from './doctor-codex.js';
import { airlockHooks } from './doctor-entries.js';
import type { DoctorCheck } from './doctor-types.js';
import { readTextFile } from './file-writes.js';
import { parseAsAgent } from './json-comments.js';
import { isJsonObject } from './json-settings.js';
import { type InstallEnv, type InstallScope, settingsPath } from './targets.js';

type Json = Record<string, unknown>;

/** The most of a `/healthz` answer doctor reads: Airlock's is `{"ok":true}`. */
export const HEALTH_BYTES_MAX = 64 * 1024;

/** The most of any other answer doctor reads (a profile configuration): the hook client's cap. */
export { ANSWER_BYTES_MAX };

/** An answer longer than doctor reads: it is not read on, and the request fails. */
export class AnswerTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`an answer over ${limit} bytes`);
    this.name = 'AnswerTooLarge';
  }
}

/** The body's text, read up to `limit` bytes. @throws AnswerTooLarge past it (the rest is not read). */
export async function cappedText(response: Response, limit: number): Promise<string> {
  if (Number(response.headers.get('content-length')) > limit) {
    await response.body?.cancel();
    throw new AnswerTooLarge(limit);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let read = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    read += value.byteLength;
    if (read > limit) {
      await reader.cancel();
      throw new AnswerTooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * One request to the kernel, bounded in time (5 s, its body's reading
 * included) and in size (`maxBytes`, default {@link HEALTH_BYTES_MAX}): its
 * status, its time, and its body read as JSON (undefined when it is not).
 * @throws AnswerTooLarge past `maxBytes`; the fetch's error otherwise.
 */
export async function request(
  url: string,
  token?: string,
  maxBytes: number = HEALTH_BYTES_MAX,
): Promise<{ status: number; ms: number; body: unknown }> {
  const started = performance.now();
  const response = await fetch(url, {
    ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
    signal: AbortSignal.timeout(5000),
  });
  const text = await cappedText(response, maxBytes);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, ms: performance.now() - started, body };
}

/** Why a request failed, in a few words: `ECONNREFUSED`, `timeout`, … */
export function failure(error: unknown): string {
  if ((error as Error).name === 'TimeoutError') return 'no answer within 5 s';
  if (error instanceof AnswerTooLarge) return error.message;
  const code = (error as { cause?: { code?: string } }).cause?.code;
  if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET') return 'the connection was closed';
  return code ?? (error as Error).message;
}

/** A kernel an installed entry calls: where that is written, its base URL and the credential it presents. */
export interface EntryKernel {
  /** The file that names it: a hooks.json, a shell client's curl config, or the settings of an HTTP hook. */
  source: string;
  url: string;
  /** Null when the credential comes from the agent's environment and this shell has none. */
  token: string | null;
}

/** Airlock's hook entries in an agent's settings (none when they cannot be read: another check says so). */
function installedHooks(agent: HookedAgent, path: string): Json[] {
  let text: string | null;
  try {
    text = readTextFile(path);
  } catch {
    return [];
  }
  if (text === null) return [];
  let groups: Record<string, unknown>;
  if (agent === 'codex') {
    groups = codexHookGroups(text);
  } else {
    try {
      const settings = parseAsAgent(agent, text);
      groups = isJsonObject(settings) && isJsonObject(settings.hooks) ? settings.hooks : {};
    } catch {
      return [];
    }
  }
  return Object.values(groups).flatMap((eventGroups) =>
    Array.isArray(eventGroups) ? airlockHooks(eventGroups).map(({ hook }) => hook) : [],
  );
}

/** The base URL of a kernel hook endpoint (`…/agent_api/v1/hooks/AGENT/OPTIONS`). */
function kernelBase(url: string): string {
  return url.replace(/\/agent_api\/v1\/hooks\/.*$/, '').replace(/\/+$/, '');
}

/** The kernel and credential of a shell client's curl config (curl strings are JSON's for `\"` and `\\`). */
function curlKernel(path: string): EntryKernel | string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return `cannot read ${path} (${(error as { code?: string }).code ?? (error as Error).message})`;
  }
  const values = (key: string) =>
    [...text.matchAll(new RegExp(`^${key} = ("(?:[^"\\\\]|\\\\.)*")$`, 'gm'))].flatMap((match) => {
      try {
        return [JSON.parse(match[1] as string) as string];
      } catch {
        return [];
      }
    });
  const [url] = values('url');
  const bearer = values('header')
    .map((header) => /^authorization: Bearer (.+)$/i.exec(header)?.[1])
    .find((token) => token !== undefined);
  if (!url || !bearer) return `${path} names no kernel URL or no credential`;
  return { source: path, url: kernelBase(url), token: bearer };
}

/**
 * The kernels the installed entries of one agent call, each once: what the
 * Node.js client's `--config` file names, a shell client's curl config, an
 * HTTP hook's URL (with this shell's `AIRLOCK_TOKEN`, which the agent's
 * environment must carry); or why one cannot be told.
 */
export function entryKernels(
  agent: HookedAgent,
  scope: InstallScope,
  env: InstallEnv & NodeJS.ProcessEnv,
): (EntryKernel | { source: string; problem: string })[] {
  const settings = settingsPath(agent, scope, env);
  const found = new Map<string, EntryKernel | { source: string; problem: string }>();
  for (const hook of installedHooks(agent, settings)) {
    if (hook.type === 'http' && typeof hook.url === 'string') {
      const kernel = {
        source: settings,
        url: kernelBase(hook.url),
        token: env.AIRLOCK_TOKEN ?? null,
      };
      found.set(`${kernel.source} ${kernel.url}`, kernel);
      continue;
    }
    const command = airlockCommandOf(hook.command);
    const source = command?.config ?? command?.hooksConfig;
    if (source === undefined || found.has(source)) continue;
    if (command?.config !== undefined) {
      const kernel = curlKernel(source);
      found.set(source, typeof kernel === 'string' ? { source, problem: kernel } : kernel);
      continue;
    }
    try {
      const config = readHookConfig(source, env);
      found.set(source, { source, url: config.url.replace(/\/+$/, ''), token: config.token });
    } catch (error) {
      found.set(source, { source, problem: (error as Error).message });
    }
  }
  return [...found.values()];
}

/** Why a kernel would refuse the hooks' events, or null when it answers as Airlock does and knows the credential. */
async function kernelProblem(kernel: EntryKernel): Promise<string | null> {
  try {
    const health = await request(`${kernel.url}/healthz`);
    if (health.status !== 200 || !isJsonObject(health.body) || health.body.ok !== true) {
      return `${kernel.url}/healthz answered ${health.status}, not as Airlock does`;
    }
    if (kernel.token === null) return null;
    const profile = await request(
      `${kernel.url}/agent_api/v1/profile/configuration`,
      kernel.token,
      ANSWER_BYTES_MAX,
    );
    if (profile.status === 401) return 'the kernel does not know its credential';
    if (profile.status === 403) return 'its credential is not an agent credential';
    return profile.status === 200
      ? null
      : `the kernel answered the profile request with ${profile.status}`;
  } catch (error) {
    return `cannot reach ${kernel.url} (${failure(error)})`;
  }
}

/**
 * Checks each kernel the installed entries call (see {@link entryKernels})
 * against the one the hooks' configuration names (`main`, checked by the
 * kernel checks): one that differs, or that does not answer as Airlock, is a
 * failed check naming the file it comes from.
 */
export async function entryKernelChecks(
  agent: HookedAgent,
  kernels: (EntryKernel | { source: string; problem: string })[],
  main: { path: string; url: string; token: string } | null,
): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  const fix = `airlock hooks install ${agent} --url URL --token-file FILE (every entry then calls one kernel)`;
  for (const kernel of kernels) {
    const check = `${agent} kernel of ${kernel.source}`;
    if ('problem' in kernel) {
      checks.push({ check, status: 'fail', detail: kernel.problem, fix });
      continue;
    }
    const sameUrl = main !== null && kernel.url === main.url.replace(/\/+$/, '');
    const sameToken = main !== null && (kernel.token === null || kernel.token === main.token);
    if (sameUrl && sameToken) continue;
    const problem = await kernelProblem(kernel);
    const differs =
      main === null
        ? null
        : sameUrl
          ? `presents another credential than ${main.path}`
          : `calls ${kernel.url}, not the kernel ${main.path} names (${main.url})`;
    if (differs === null && problem === null) {
      checks.push({ check, status: 'ok', detail: `${kernel.url} answers as Airlock` });
      continue;
    }
    checks.push({
      check,
      status: 'fail',
      detail: `${kernel.source} ${[differs, problem].filter((part) => part !== null).join('; and ')}: ${differs ? 'the entries of one agent report to different kernels' : 'every tool call it hooks will be refused'}`,
      fix,
    });
  }
  return checks;
}
