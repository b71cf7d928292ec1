import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HookedAgent } from '@airlock/core';
import {
  HOOK_TIMEOUT_SECONDS,
  SHORT_HOOK_TIMEOUT_SECONDS,
  WAIT_MARGIN_MS,
} from '../client/wait-limits.js';
import { nativeHookPath } from './entries.js';

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
  /** The hooks' JSON configuration: the curl config goes beside it. */
  configPath: string;
  /** The kernel URL and the agent credential the hooks present. */
  kernel: { url: string; token: string };
  waitMs?: number | undefined;
  defer?: boolean | undefined;
}

/**
 * The curl config the shell clients read (to be written mode 0600, beside the
 * hooks' configuration): this agent's kernel hook endpoint, the agent
 * credential as a header (a token file is read at install: rotating it means
 * installing again) and curl's time limit, the agent's own hook timeout less
 * the margin every client keeps (110 s); a `# short-max-time` comment gives
 * the clients the limit of the events the agent gives 30 s (the session's
 * start, the reports of what ran): 20 s.
 * @throws Error when the URL or the credential holds a line break.
 */
export function shellClientConfig(options: ShellClientOptions): { path: string; text: string } {
  const defer = options.agent === 'claude-code' && options.defer === true;
  const endpoint = `${options.kernel.url.replace(/\/+$/, '')}${nativeHookPath(options.agent, { waitMs: options.waitMs, defer })}`;
  const lines = [
    '# Written by `airlock hooks install --client sh|bash`; read by airlock-hook.sh and airlock-hook.bash. Keep it private.',
    `url = ${curlString(endpoint)}`,
    `header = ${curlString(`authorization: Bearer ${options.kernel.token}`)}`,
    'header = "content-type: application/json"',
    // The hook answers at least the client's margin before the agent gives up on it.
    `max-time = ${HOOK_TIMEOUT_SECONDS - WAIT_MARGIN_MS / 1000}`,
    // A comment to curl: the clients' own limit for the events the agent gives less time.
    `# short-max-time = ${SHORT_HOOK_TIMEOUT_SECONDS - WAIT_MARGIN_MS / 1000}`,
    '',
  ];
  return {
    path: join(dirname(options.configPath), `hooks-${options.agent}.curl`),
    text: lines.join('\n'),
  };
}
