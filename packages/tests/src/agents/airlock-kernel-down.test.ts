import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentNames } from './agent-binaries.js';
import {
  type AgentSandbox,
  createAgentSandbox,
  permissionModes,
  runAgent,
} from './agent-sandbox.js';
import { agentTests } from './agent-tests.js';
import { installAirlockHooks, startAirlockKernel } from './airlock-hooks.js';

// The kernel dies between two tool calls of one session: whatever the agent's own permission mode,
// the next call is refused by Airlock's hook (fail closed) and nothing of it runs.
const SHELL = 'Bash|run_shell_command';

function ranLines(sandbox: AgentSandbox): string[] {
  const path = join(sandbox.project, 'ran.log');
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
}

describe.each(agentNames)(
  '%s with the kernel killed mid-session',
  { timeout: 300_000 },
  (agent) => {
    const { missing, hold } = agentTests(agent);

    it.skipIf(missing).each(permissionModes[agent])(
      'refuses the next call under %s',
      async (mode) => {
        const kernel = hold(await startAirlockKernel());
        await kernel.setProfile({
          approval_mode: 'rules',
          approval_rules: [
            { tool: SHELL, path: 'command', match: 'echo granted*', verdict: 'allow' },
          ],
        });
        const sandbox = hold(
          await createAgentSandbox(agent, [
            { kind: 'shell', command: 'echo granted-one >> ran.log' },
            { kind: 'shell', command: 'echo granted-two >> ran.log', before: () => kernel.stop() },
          ]),
        );
        installAirlockHooks(sandbox, kernel);
        const run = await runAgent(sandbox, { permissionMode: mode });
        expect(run.timedOut, run.stderr).toBe(false);
        const ran = ranLines(sandbox);
        expect(ran).not.toContain('granted-two');
        // Where the agent's own mode let the first (granted) call run, the second was Airlock's refusal.
        if (ran.includes('granted-one')) {
          expect(sandbox.server.toolOutputs()[1]).toContain('Airlock could not decide this call');
        }
      },
    );
  },
);
