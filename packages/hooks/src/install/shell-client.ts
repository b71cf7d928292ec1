import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HookedAgent } from '@airlock/core';
import { readHookConfig } from '../client/config.js';
import { HOOK_TIMEOUT_SECONDS, nativeHookPath } from './entries.js';

/** The hook clients that are shell scripts, not the Node.js entry. */
export type ShellClient = 'sh' | 'bash';

/**
 * A shell hook client, shipped beside `dist/`: `sh` (`shell/airlock-hook.sh`,
 * a POSIX shell and curl per hook event) or `bash` (`shell/airlock-hook.bash`,
 * bash alone: it speaks HTTP over `/dev/tcp`, so no curl process starts).
 */
export function shellHookPath(client: ShellClient = 'sh'): string {
  return join(
    dirname(fileURLToPath(import.meta.url)),
    '..',
    '..',
    'shell',
    `airlock-hook.${client}`,
  );
}

/** A curl config value: double-quoted, with backslashes and quotes escaped. */
function curlString(value: string): string {
  if (/[\r\n]/.test(value)) throw new Error('a kernel URL or credential cannot hold a line break');
  return `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

/** What the shell client's curl config is made from. */
export interface ShellClientOptions {
  agent: HookedAgent;
  /** The hooks' JSON configuration (url, token or token_file), already written. */
  configPath: string;
  waitMs?: number | undefined;
  defer?: boolean | undefined;
  env?: NodeJS.ProcessEnv | undefined;
}

/**
 * Writes the curl config the shell clients read (mode 0600, beside the
 * hooks' configuration): this agent's kernel hook endpoint, the agent
 * credential as a header (a token file is read now: rotating it means
 * installing again) and curl's time limit, a little under the agent's own
 * hook timeout. Answers the file's path.
 * @throws Error when no kernel URL or credential is configured.
 */
export function writeShellClientConfig(options: ShellClientOptions): string {
  const config = readHookConfig(options.configPath, options.env);
  const defer = options.agent === 'claude-code' && options.defer === true;
  const endpoint = `${config.url.replace(/\/+$/, '')}${nativeHookPath(options.agent, { waitMs: options.waitMs, defer })}`;
  const lines = [
    '# Written by `airlock hooks install --client sh|bash`; read by airlock-hook.sh and airlock-hook.bash. Keep it private.',
    `url = ${curlString(endpoint)}`,
    `header = ${curlString(`authorization: Bearer ${config.token}`)}`,
    'header = "content-type: application/json"',
    `max-time = ${HOOK_TIMEOUT_SECONDS - 5}`,
    '',
  ];
  const path = join(dirname(options.configPath), `hooks-${options.agent}.curl`);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, lines.join('\n'), { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}
