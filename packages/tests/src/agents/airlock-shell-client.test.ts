import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentNames } from './agent-binaries.js';
import { type AgentSandbox, createAgentSandbox, runAgent } from './agent-sandbox.js';
import { agentTests } from './agent-tests.js';
import { installAirlockHooks, startAirlockKernel } from './airlock-hooks.js';
import type { ScriptStep } from './model-servers/scripted-server.js';

// The real agents with the shell hook clients (`airlock hooks install --client sh`: a shell and
// curl per hook event; `--client bash`: bash alone, HTTP over /dev/tcp), the kernel answering in
// the agent's own format. The same verdicts as the Node.js client, and the same fail-closed
// refusal when the kernel is gone.
const SHELL = 'Bash|run_shell_command';
const RULES = [
  { tool: SHELL, path: 'command', match: 'rm *', verdict: 'deny', reason: 'build output stays' },
  { tool: SHELL, path: 'command', match: 'echo granted*', verdict: 'allow' },
];

function ranLines(sandbox: AgentSandbox): string[] {
  const path = join(sandbox.project, 'ran.log');
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
}

const cases = agentNames.flatMap((agent) =>
  (['sh', 'bash'] as const).map((client) => ({ agent, client })),
);

describe.each(cases)(
  '$agent through the $client hook client',
  { timeout: 300_000 },
  ({ agent, client }) => {
    const { missing, hold } = agentTests(agent);

    async function setUp(script: ScriptStep[]) {
      const airlock = hold(await startAirlockKernel());
      await airlock.setProfile({ approval_mode: 'rules', approval_rules: RULES });
      const sandbox = hold(await createAgentSandbox(agent, script));
      installAirlockHooks(sandbox, airlock, { client });
      return { airlock, sandbox };
    }

    it.skipIf(missing)(
      'a denied rm -r leaves build/ intact and the model reads why; a granted command runs once',
      async () => {
        const { sandbox, airlock } = await setUp([
          { kind: 'shell', command: 'rm -r ./build' },
          { kind: 'shell', command: 'echo granted >> ran.log && echo story-output' },
        ]);
        // Installed as a shell command; the credential only in a config its owner reads,
        // never in the agent's settings (and so never in a process list).
        const config = join(sandbox.home, '.airlock', `hooks-${agent}.curl`);
        expect(statSync(config).mode & 0o777).toBe(0o600);
        expect(readFileSync(config, 'utf8')).toContain(
          `${airlock.kernel.url}/agent_api/v1/hooks/${agent}/default`,
        );
        const settings = readFileSync(
          agent === 'codex'
            ? join(sandbox.codexHome, 'config.toml')
            : join(sandbox.home, agent === 'gemini' ? '.gemini' : '.claude', 'settings.json'),
          'utf8',
        );
        expect(settings).toContain(`airlock-hook.${client}`);
        expect(settings).not.toContain(airlock.kernel.workspace.tokens.agent);

        const run = await runAgent(sandbox);
        expect(run.timedOut, run.stderr).toBe(false);
        expect(existsSync(join(sandbox.project, 'build', 'artifact.txt'))).toBe(true);
        const [refused, granted] = sandbox.server.toolOutputs();
        expect(refused).toContain('build output stays');
        expect(granted).toContain('story-output');
        expect(ranLines(sandbox)).toEqual(['granted']);
        // The run story shows both calls, and what the granted one printed.
        const [story] = await airlock.member.runs.list({ limit: 1 });
        const tasks = await airlock.member.runs.run(story!.id).tasks();
        expect(tasks).toHaveLength(2);
        expect(tasks[0]?.state).not.toBe('succeeded');
        expect(tasks[1]?.state).toBe('succeeded');
        expect(JSON.stringify(tasks[1]?.result)).toContain('story-output');
      },
    );

    it.skipIf(missing)(
      'with the kernel stopped mid-session, the next call is refused and does not run',
      async () => {
        const kernel = hold(await startAirlockKernel());
        await kernel.setProfile({ approval_mode: 'rules', approval_rules: RULES });
        const sandbox = hold(
          await createAgentSandbox(agent, [
            { kind: 'shell', command: 'echo granted-one >> ran.log' },
            { kind: 'shell', command: 'echo granted-two >> ran.log', before: () => kernel.stop() },
          ]),
        );
        installAirlockHooks(sandbox, kernel, { client });
        const run = await runAgent(sandbox);
        expect(run.timedOut, run.stderr).toBe(false);
        expect(ranLines(sandbox)).toEqual(['granted-one']);
        expect(sandbox.server.toolOutputs()[1]).toContain('Airlock could not decide this call');
      },
    );
  },
);
