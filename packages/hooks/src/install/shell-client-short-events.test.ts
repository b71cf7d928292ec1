import { readFileSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installHooks } from './install.js';
import { freshHome, runInstalled } from './test-home.js';

/**
 * The session's start and the reports of what ran have 30 s from the agent,
 * not 120: the shell clients give up on a kernel that does not answer them
 * within the config's `# short-max-time`, not its `max-time` (Gemini CLI
 * waits for a hook it timed out until the hook's last process ends).
 */

/** A kernel that takes connections and never answers them. */
const silent = createServer((socket) => socket.on('data', () => {}));
let url = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => silent.close(() => resolve())));

describe.each(['sh', 'bash'] as const)('the %s client on events the agent gives 30 s', (client) => {
  /** Installs the client for `agent` with its short limit set to 1 s (the long one stays 110 s). */
  function installed(agent: 'claude-code' | 'gemini'): string {
    const { home, env } = freshHome(`short-${client}`);
    const { command } = installHooks({
      agent,
      scope: { kind: 'user' },
      env,
      url,
      token: 't',
      client,
    });
    const config = join(home, '.airlock', `hooks-${agent}.curl`);
    const text = readFileSync(config, 'utf8');
    expect(text).toContain('max-time = 110\n# short-max-time = 20\n');
    writeFileSync(config, text.replace('short-max-time = 20', 'short-max-time = 1'));
    return command;
  }

  it.each([
    ['claude-code', 'SessionStart'],
    ['claude-code', 'PostToolUse'],
    ['claude-code', 'PostToolUseFailure'],
    ['gemini', 'AfterTool'],
  ] as const)(
    '%s %s: passes once the short limit is up',
    { timeout: 30_000 },
    async (agent, event) => {
      const run = await runInstalled(
        installed(agent),
        JSON.stringify({ session_id: 's', hook_event_name: event, tool_name: 'Bash' }),
      );
      expect(run.status).toBe(0);
      // The user is told (systemMessage) that the event was not recorded.
      expect(JSON.parse(run.stdout).systemMessage).toMatch(/^Airlock could not record this event/);
      expect(run.stderr).not.toBe('');
    },
  );
});
