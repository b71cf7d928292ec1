import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HookedAgent } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { doctor } from './doctor.js';
import { installHooks } from './install.js';

// Airlock's entries edited by hand, each of which the agent reads so that a call runs without
// Airlock's answer; doctor called each of them registered.

/** Where each agent's user install writes its entries. */
const SETTINGS: Record<HookedAgent, string> = {
  'claude-code': '.claude/settings.json',
  codex: '.codex/config.toml',
  gemini: '.gemini/settings.json',
};

const PRE_TOOL: Record<HookedAgent, string> = {
  'claude-code': 'PreToolUse',
  codex: 'PreToolUse',
  gemini: 'BeforeTool',
};

function installed(agent: HookedAgent, client: 'node' | 'sh') {
  const home = mkdtempSync(join(tmpdir(), 'airlock-hooks-copied-'));
  const env = { HOME: home, CODEX_HOME: join(home, '.codex') };
  for (const folder of ['.claude', '.codex', '.gemini']) mkdirSync(join(home, folder));
  writeFileSync(join(home, 'airlock-hook.js'), '');
  installHooks({
    agent,
    scope: { kind: 'user' },
    env,
    url: 'http://127.0.0.1:9',
    token: 'alk_agent_x',
    node: process.execPath,
    hookEntry: join(home, 'airlock-hook.js'),
    client,
  });
  return { home, env, settings: join(home, SETTINGS[agent]) };
}

const preToolCheck = async (agent: HookedAgent, env: { HOME: string; CODEX_HOME: string }) =>
  (await doctor({ agents: [agent], scope: { kind: 'user' }, env, binaries: {} })).find(
    (check) => check.check === `${agent} hooks ${PRE_TOOL[agent]}`,
  );

/** Rewrites the first pre-tool entry of a JSON agent's user settings. */
function editPreTool(
  settings: string,
  agent: HookedAgent,
  edit: (hook: Record<string, unknown>) => void,
) {
  const parsed = JSON.parse(readFileSync(settings, 'utf8'));
  edit(parsed.hooks[PRE_TOOL[agent]][0].hooks[0]);
  writeFileSync(settings, JSON.stringify(parsed, null, 2));
}

// Measured with the pinned agents (packages/tests/src/agents/airlock-hand-edits.test.ts): Claude
// Code 2.1 and Gemini CLI 0.61 skip an entry of "type": "Command", and Claude Code one whose
// timeout is a string, running the call unasked.
describe('an entry of a shape the agent does not run', () => {
  it.each(['claude-code', 'gemini'] as const)('"type": "Command" in %s fails', async (agent) => {
    const { env, settings } = installed(agent, 'node');
    editPreTool(settings, agent, (hook) => {
      hook.type = 'Command';
    });
    expect(await preToolCheck(agent, env)).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('"type": "Command"'),
    });
  });

  it.each(['claude-code', 'gemini'] as const)(
    'a timeout written as text in %s fails',
    async (agent) => {
      const { env, settings } = installed(agent, 'node');
      editPreTool(settings, agent, (hook) => {
        hook.timeout = String(hook.timeout);
      });
      expect(await preToolCheck(agent, env)).toMatchObject({
        status: 'fail',
        detail: expect.stringContaining('not a number'),
      });
    },
  );

  // Gemini CLI gives an entry with no timeout 60 s, under the 100 s a call may wait for a person.
  it('no timeout in Gemini CLI fails; in Claude Code it passes', async () => {
    for (const agent of ['gemini', 'claude-code'] as const) {
      const { env, settings } = installed(agent, 'node');
      editPreTool(settings, agent, (hook) => {
        delete hook.timeout;
      });
      const check = await preToolCheck(agent, env);
      if (agent === 'gemini') {
        expect(check).toMatchObject({
          status: 'fail',
          detail: expect.stringContaining("no timeout, so the agent's own default of 60000 ms"),
        });
      } else expect(check?.status).toBe('ok');
    }
  });
});

// A person hooks a second agent by copying the first one's entry into its settings: the entry
// then runs the client for the first agent (or posts to its endpoint), which does not read the
// second agent's tool checks as its own.
describe("an entry that answers another agent's hook events", () => {
  it.each([
    ['gemini', 'claude-code', 'node'],
    ['claude-code', 'gemini', 'node'],
    ['codex', 'gemini', 'node'],
    ['gemini', 'claude-code', 'sh'],
    ['claude-code', 'codex', 'sh'],
  ] as const)('%s running the %s client (%s): doctor fails it', async (agent, other, client) => {
    const { env, settings } = installed(agent, client);
    const text = readFileSync(settings, 'utf8');
    const copied =
      client === 'node'
        ? text.replaceAll(`.js ${agent} `, `.js ${other} `)
        : text.replaceAll(`hooks-${agent}.curl`, `hooks-${other}.curl`);
    expect(copied).not.toBe(text);
    writeFileSync(settings, copied);
    if (client === 'sh') {
      const config = join(env.HOME, '.airlock');
      writeFileSync(
        join(config, `hooks-${other}.curl`),
        readFileSync(join(config, `hooks-${agent}.curl`)),
      );
    }
    const checks = await doctor({ agents: [agent], scope: { kind: 'user' }, env, binaries: {} });
    expect(
      checks.find((check) => check.check === `${agent} hooks ${PRE_TOOL[agent]}`),
    ).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining(`answers ${other}'s hook events, not ${agent}'s`),
    });
  });

  it.each(['claude-code', 'codex', 'gemini'] as const)(
    "%s's own entries as install writes them pass that check",
    async (agent) => {
      const { env } = installed(agent, 'node');
      expect(await preToolCheck(agent, env)).toMatchObject({ status: 'ok' });
    },
  );
});
