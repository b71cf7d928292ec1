import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentNames } from './agent-binaries.js';
import { createAgentSandbox, runAgent } from './agent-sandbox.js';
import { agentTests } from './agent-tests.js';
import { denyOutput, installNativeHook, writeHookScript } from './native-hooks.js';

// The harness itself, before Airlock is in the loop: each real agent runs offline against its
// scripted model server, runs the scripted tool call, and obeys a plain command hook that denies.
const script = [{ kind: 'shell' as const, command: 'rm -r ./build' }];

describe.each(agentNames)(
  '%s offline through its scripted model server',
  { timeout: 300_000 },
  (agent) => {
    const { missing, hold } = agentTests(agent);

    it.skipIf(missing)(
      'runs the scripted rm -r with no hook, and the model reads its result',
      async () => {
        const sandbox = hold(await createAgentSandbox(agent, script));
        const run = await runAgent(sandbox);
        expect(run.timedOut, run.stderr).toBe(false);
        expect(existsSync(join(sandbox.project, 'build')), run.stdout + run.stderr).toBe(false);
        expect(sandbox.server.turns().length).toBeGreaterThanOrEqual(2);
        expect(sandbox.server.toolOutputs()).toHaveLength(1);
      },
    );

    it.skipIf(missing)(
      'keeps build/ when a command hook denies, and the model reads the reason',
      async () => {
        const sandbox = hold(await createAgentSandbox(agent, script));
        const reason = `scripted-deny-${agent}: removing build output needs a person`;
        const hook = writeHookScript(
          sandbox,
          'deny',
          `cat >/dev/null\nprintf '%s' '${denyOutput(agent, reason)}'`,
        );
        installNativeHook(sandbox, { command: hook, timeoutSeconds: 10 });
        const run = await runAgent(sandbox);
        expect(run.timedOut, run.stderr).toBe(false);
        expect(
          existsSync(join(sandbox.project, 'build', 'artifact.txt')),
          run.stdout + run.stderr,
        ).toBe(true);
        const [output] = sandbox.server.toolOutputs();
        expect(output, JSON.stringify(sandbox.server.toolOutputs())).toContain(reason);
      },
    );
  },
);
