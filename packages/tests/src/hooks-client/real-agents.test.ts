import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { installHooks } from '@airlock/hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { agentNames, missingAgentReason } from '../agents/agent-binaries.js';
import { type AgentSandbox, createAgentSandbox, runAgent } from '../agents/agent-sandbox.js';
import { startTestKernel, type TestKernel } from '../support/kernel.js';

// A smoke test of `airlock hooks install` with each real agent (the full matrix is the agent
// harness's): a refused `rm -r ./build` leaves build/ in place and the model reads Airlock's reason.
describe.each(agentNames)('%s through airlock hooks install', (agent) => {
  const missing = missingAgentReason(agent);
  let sandbox: AgentSandbox | undefined;
  let kernel: TestKernel | undefined;
  afterEach(async () => {
    await sandbox?.close();
    await kernel?.close();
    sandbox = undefined;
    kernel = undefined;
  });

  it.skipIf(missing)(
    'refuses rm -r ./build with the reason the model reads, in its session run',
    async () => {
      kernel = await startTestKernel();
      const token = kernel.workspace.tokens.agent;
      await fetch(`${kernel.url}/agent_api/v1/profile/configuration`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          approval_mode: 'bypass',
          approval_rules: [
            {
              tool: '*',
              path: 'command',
              match: 'rm *',
              verdict: 'deny',
              reason: 'build/ stays: ask a person first',
            },
          ],
        }),
      });
      sandbox = await createAgentSandbox(agent, [{ kind: 'shell', command: 'rm -r ./build' }]);
      const result = installHooks({
        agent,
        scope: { kind: 'user' },
        env: { HOME: sandbox.home, CODEX_HOME: sandbox.codexHome },
        url: kernel.url,
        token,
        waitMs: 5000,
        configPath: join(sandbox.home, '.airlock', 'hooks.json'),
      });
      expect(result.changed).toBe(true);
      const run = await runAgent(sandbox, { timeoutMs: 120_000 });
      const log = `${run.stdout}\n${run.stderr}\n${readFileSync(result.settingsPath, 'utf8')}`;
      expect(run.timedOut, log).toBe(false);
      expect(existsSync(join(sandbox.project, 'build', 'artifact.txt')), log).toBe(true);
      const read = JSON.stringify(sandbox.server.turns().slice(1));
      expect(read, log).toContain('build/ stays: ask a person first');
      const runs = await fetch(`${kernel.url}/api/v1/workspaces/${kernel.workspace.id}/runs`, {
        headers: { authorization: `Bearer ${kernel.workspace.tokens.member}` },
      }).then((r) => r.json());
      expect(runs.runs.length, log).toBeGreaterThanOrEqual(1);
    },
    180_000,
  );
});

describe('claude-code through its HTTP hook to the kernel', () => {
  const missing = missingAgentReason('claude-code');
  it.skipIf(missing)(
    'refuses rm -r ./build, grants a command and records what it printed, fails closed when the kernel is gone',
    async () => {
      const kernel = await startTestKernel();
      const sandbox = await createAgentSandbox('claude-code', [
        { kind: 'shell', command: 'rm -r ./build' },
        { kind: 'shell', command: 'echo http-story' },
      ]);
      try {
        const token = kernel.workspace.tokens.agent;
        await fetch(`${kernel.url}/agent_api/v1/profile/configuration`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            approval_mode: 'bypass',
            approval_rules: [
              {
                tool: 'Bash',
                path: 'command',
                match: 'rm *',
                verdict: 'deny',
                reason: 'http: build/ stays',
              },
            ],
          }),
        });
        const result = installHooks({
          agent: 'claude-code',
          scope: { kind: 'user' },
          env: { HOME: sandbox.home },
          url: kernel.url,
          http: true,
          waitMs: 5000,
          configPath: join(sandbox.home, '.airlock', 'hooks.json'),
        });
        const settings = readFileSync(result.settingsPath, 'utf8');
        expect(settings).toContain('"type": "http"');
        const run = await runAgent(sandbox, { timeoutMs: 120_000, env: { AIRLOCK_TOKEN: token } });
        const log = `${run.stdout}\n${run.stderr}\n${settings}`;
        expect(existsSync(join(sandbox.project, 'build', 'artifact.txt')), log).toBe(true);
        const [refused, granted] = sandbox.server.toolOutputs();
        expect(refused, log).toContain('http: build/ stays');
        expect(granted, log).toContain('http-story');
        // The report of what ran came from the background command hook, before the run closed.
        const member = { authorization: `Bearer ${kernel.workspace.tokens.member}` };
        const base = `${kernel.url}/api/v1/workspaces/${kernel.workspace.id}/runs`;
        const { runs } = await fetch(base, { headers: member }).then((r) => r.json());
        const { tasks } = await fetch(`${base}/${runs[0].id}/tasks`, { headers: member }).then(
          (r) => r.json(),
        );
        expect(
          tasks.map((task: { state: string }) => task.state),
          log,
        ).toEqual(['failed', 'succeeded']);
        expect(JSON.stringify(tasks[1].result), log).toContain('http-story');

        await kernel.airlock.close();
        const down = await createAgentSandbox('claude-code', [
          { kind: 'shell', command: 'rm -r ./build' },
        ]);
        try {
          installHooks({
            agent: 'claude-code',
            scope: { kind: 'user' },
            env: { HOME: down.home },
            url: kernel.url,
            http: true,
            configPath: join(down.home, '.airlock', 'hooks.json'),
          });
          const gone = await runAgent(down, { timeoutMs: 120_000, env: { AIRLOCK_TOKEN: token } });
          expect(
            existsSync(join(down.project, 'build', 'artifact.txt')),
            gone.stdout + gone.stderr,
          ).toBe(true);
        } finally {
          await down.close();
        }
      } finally {
        await sandbox.close();
        await kernel.close().catch(() => undefined);
      }
    },
    240_000,
  );
});
