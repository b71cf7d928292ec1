import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { installHooks } from '@airlock/hooks';
import type { AgentName } from './agent-binaries.js';
import type { AgentSandbox } from './agent-sandbox.js';
import type { HookVariant } from './bench-variants.js';
import { preToolEvent } from './native-hooks.js';

/** A kernel the Airlock variants put in front of the agent: where it listens, an agent credential. */
export interface BenchKernel {
  url: string;
  agentToken: string;
  close(): Promise<void>;
}

/**
 * Airlock in front of the agent through `airlock hooks install`, the calls
 * granted by a rule: a real kernel on loopback (SQLite, started by
 * `startKernel`), the command hook entry, and for Claude Code also the
 * kernel's own HTTP hook.
 */
function airlockVariant(
  agent: AgentName,
  startKernel: () => Promise<BenchKernel>,
  transport: 'command' | 'http' | 'http, pre only',
  client: 'node' | 'sh' | 'bash' = 'node',
): HookVariant {
  return {
    name: `airlock (${transport !== 'command' ? transport : client === 'node' ? 'command' : `command, ${client}`})`,
    kind: 'airlock',
    transport: transport === 'command' ? 'command' : 'http',
    async setup(sandbox: AgentSandbox) {
      const kernel = await startKernel();
      const token = kernel.agentToken;
      await fetch(`${kernel.url}/agent_api/v1/profile/configuration`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          approval_mode: 'rules',
          approval_rules: [
            { tool: preToolEvent[agent].shellTool, verdict: 'allow' },
            { tool: '*', verdict: 'allow' },
          ],
        }),
      });
      installHooks({
        agent,
        scope: { kind: 'user' },
        env: { HOME: sandbox.home, CODEX_HOME: sandbox.codexHome },
        url: kernel.url,
        token,
        http: transport !== 'command',
        client,
        configPath: join(sandbox.home, '.airlock', 'hooks.json'),
      });
      // Where the time goes: the same entries without the report after each call.
      if (transport === 'http, pre only') dropPostToolEntries(sandbox);
      // The HTTP hook reads its credential from the agent's environment.
      sandbox.env.AIRLOCK_TOKEN = token;
      return () => kernel.close();
    },
  };
}

/** Removes Claude Code's PostToolUse entries (Airlock's report of what ran) from its user settings. */
function dropPostToolEntries(sandbox: AgentSandbox): void {
  const path = join(sandbox.home, '.claude', 'settings.json');
  const settings = JSON.parse(readFileSync(path, 'utf8'));
  delete settings.hooks.PostToolUse;
  delete settings.hooks.PostToolUseFailure;
  writeFileSync(path, JSON.stringify(settings, null, 2));
}

/**
 * The Airlock variants measured for an agent: the command hook through the
 * Node.js client and through the two shell clients, and Claude Code's HTTP hook (also without
 * its PostToolUse report, to tell the check's cost from the report's).
 */
export function airlockVariants(
  agent: AgentName,
  startKernel: () => Promise<BenchKernel>,
): HookVariant[] {
  const command = [
    airlockVariant(agent, startKernel, 'command'),
    airlockVariant(agent, startKernel, 'command', 'sh'),
    airlockVariant(agent, startKernel, 'command', 'bash'),
  ];
  return agent === 'claude-code'
    ? [
        ...command,
        airlockVariant(agent, startKernel, 'http'),
        airlockVariant(agent, startKernel, 'http, pre only'),
      ]
    : command;
}
