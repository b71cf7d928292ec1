import { readFileSync } from 'node:fs';
import { forTerminal, shownKernelUrl } from '@airlock/core/command-line';
import { fileError, readTextFile } from './file-writes.js';
import { isJsonObject } from './json-settings.js';

/** What `install` was told about the kernel. */
export interface KernelOptions {
  url?: string | undefined;
  token?: string | undefined;
  tokenFile?: string | undefined;
  waitMs?: number | undefined;
}

/** The hooks' configuration file as `install` would leave it. */
export interface PlannedHookConfig {
  /** The file's new text, or null when this install does not change it. */
  text: string | null;
  /** The file's content as it would be (what the Node.js client then reads). */
  stored: Record<string, unknown>;
  /**
   * Set when this install points the file at another kernel or credential
   * than an earlier install did: every entry that reads the file follows.
   */
  repointed: string | null;
}

/** A stored kernel URL as a note shows it: without a `user:password@` part (stderr lands in logs). */
function shownUrl(url: unknown): string {
  return forTerminal(shownKernelUrl(String(url)));
}

function repointing(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): string | null {
  if (before.url === undefined && before.token === undefined && before.token_file === undefined) {
    return null;
  }
  const changes: string[] = [];
  if (before.url !== after.url)
    changes.push(`the kernel ${shownUrl(before.url)} → ${shownUrl(after.url)}`);
  if (before.token !== after.token || before.token_file !== after.token_file) {
    changes.push('the credential');
  }
  return changes.length > 0 ? changes.join(' and ') : null;
}

/**
 * Reads the hooks' configuration (`~/.airlock/hooks.json`) and merges what
 * this install was told: the URL, the credential or its file, the wait.
 * @throws Error naming the file when it cannot be read or is not a JSON object.
 */
export function planHookConfig(path: string, options: KernelOptions): PlannedHookConfig {
  const text = readTextFile(path);
  let stored: unknown = {};
  if (text !== null) {
    try {
      stored = JSON.parse(text);
    } catch (error) {
      throw new Error(
        `the hooks configuration ${path} is not valid JSON (${(error as Error).message}); fix or remove it first`,
      );
    }
  }
  if (!isJsonObject(stored)) {
    throw new Error(`the hooks configuration ${path} is not a JSON object; fix or remove it first`);
  }
  if (options.url === undefined && options.token === undefined && options.tokenFile === undefined) {
    return { text: null, stored, repointed: null };
  }
  const next: Record<string, unknown> = { ...stored };
  if (options.url !== undefined) next.url = options.url;
  if (options.token !== undefined) {
    next.token = options.token;
    delete next.token_file;
  }
  if (options.tokenFile !== undefined) {
    next.token_file = options.tokenFile;
    delete next.token;
  }
  if (options.waitMs !== undefined) next.wait_ms = options.waitMs;
  const nextText = `${JSON.stringify(next, null, 2)}\n`;
  return {
    text: nextText === text ? null : nextText,
    stored: next,
    repointed: repointing(stored, next),
  };
}

/**
 * The kernel URL and credential the shell client's curl config carries: what
 * this install writes to the hooks' configuration (the flags it was given,
 * else what an earlier install stored), so that both name the same kernel;
 * the installing shell's `AIRLOCK_URL`, `AIRLOCK_TOKEN` and
 * `AIRLOCK_TOKEN_FILE` only fill what neither gives.
 * @throws Error saying what is missing, or naming a credential file it cannot read.
 */
export function resolveKernel(
  stored: Record<string, unknown>,
  path: string,
  env: NodeJS.ProcessEnv,
): { url: string; token: string } {
  const url = typeof stored.url === 'string' ? stored.url : env.AIRLOCK_URL;
  let token: string | undefined;
  if (typeof stored.token === 'string') token = stored.token;
  else if (typeof stored.token_file === 'string') token = readTokenFile(stored.token_file);
  else if (env.AIRLOCK_TOKEN !== undefined) token = env.AIRLOCK_TOKEN;
  else if (env.AIRLOCK_TOKEN_FILE !== undefined) token = readTokenFile(env.AIRLOCK_TOKEN_FILE);
  if (!url) throw new Error(`no kernel URL: pass --url (or set "url" in ${path})`);
  if (!token)
    throw new Error(
      `no agent credential: pass --token or --token-file (or set "token" in ${path})`,
    );
  return { url, token };
}

/**
 * Reads an agent credential file.
 * @throws Error naming the file when it cannot be read or is empty.
 */
export function readTokenFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw fileError(path, error);
  }
  const token = text.trim();
  if (token === '') throw new Error(`the credential file ${path} is empty`);
  return token;
}
