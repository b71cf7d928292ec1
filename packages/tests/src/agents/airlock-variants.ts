import { join } from 'node:path';
import { installHooks } from '@airlock/hooks';
import { startTestKernel } from '../support/kernel.js';
import type { AgentName } from './agent-binaries.js';
import type { AgentSandbox } from './agent-sandbox.js';
import type { HookVariant } from './bench-variants.js';
import { preToolEvent } from './native-hooks.js';

/**
 * Airlock in front of the agent through `airlock hooks install`, the calls
 * granted by a rule: a real kernel on loopback (SQLite), the command hook
 * entry, and for Claude Code also the kernel's own HTTP hook.
 */
function airlockVariant(
  agent: AgentName,
  transport: 'command' | 'http',
  client: 'node' | 'sh' | 'bash' = 'node',
): HookVariant {
  return {
    name: `airlock (${transport === 'http' ? 'http' : client === 'node' ? 'command' : `command, ${client}`})`,
    kind: 'airlock',
    transport,
    async setup(sandbox: AgentSandbox) {
      const kernel = await startTestKernel();
      const token = kernel.workspace.tokens.agent;
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
        http: transport === 'http',
        client,
        configPath: join(sandbox.home, '.airlock', 'hooks.json'),
      });
      // The HTTP hook reads its credential from the agent's environment.
      sandbox.env.AIRLOCK_TOKEN = token;
      return () => kernel.close();
    },
  };
}

/**
 * The Airlock variants measured for an agent: the command hook through the
 * Node.js client and through the two shell clients, and Claude Code's HTTP hook.
 */
export function airlockVariants(agent: AgentName): HookVariant[] {
  const command = [
    airlockVariant(agent, 'command'),
    airlockVariant(agent, 'command', 'sh'),
    airlockVariant(agent, 'command', 'bash'),
  ];
  return agent === 'claude-code' ? [...command, airlockVariant(agent, 'http')] : command;
}
