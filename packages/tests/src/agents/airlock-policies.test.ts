import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createExecutor } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';
import { agentNames } from './agent-binaries.js';
import { type AgentSandbox, createAgentSandbox, runAgent } from './agent-sandbox.js';
import { agentTests } from './agent-tests.js';
import { installAirlockHooks, startAirlockKernel } from './airlock-hooks.js';
import type { ScriptStep } from './model-servers/scripted-server.js';

// Spec 000's deny rule under bypass, spec 004's requires_user and shadow mode, and spec 002's stop
// hook with its max_continuations cap, each through a real agent and Airlock's hook client.
const SHELL = 'Bash|run_shell_command';

function ranLines(sandbox: AgentSandbox): string[] {
  const path = join(sandbox.project, 'ran.log');
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
}

/** The main turns' raw bodies after the first: where reminders and stop feedback reach the model. */
function laterTurns(sandbox: AgentSandbox): string {
  return sandbox.server
    .turns()
    .slice(1)
    .map((turn) => turn.raw)
    .join('\n');
}

describe.each(agentNames)('%s: policies through Airlock', { timeout: 300_000 }, (agent) => {
  const { missing, hold } = agentTests(agent);

  async function setUp(profile: Record<string, unknown>, script: ScriptStep[]) {
    const airlock = hold(await startAirlockKernel());
    await airlock.setProfile(profile);
    const sandbox = hold(await createAgentSandbox(agent, script));
    installAirlockHooks(sandbox, airlock);
    return { airlock, sandbox };
  }

  // One session for the rule and the contract's requires_user: an agent run costs seconds.
  it.skipIf(missing)(
    'a deny rule refuses even under bypass; an unmatched call runs; requires_user is asked of a user, never granted silently; the run story shows them',
    async () => {
      const { sandbox, airlock } = await setUp(
        {
          approval_mode: 'bypass',
          approval_rules: [
            { tool: SHELL, path: 'command', match: 'rm *', verdict: 'deny', reason: 'keep build/' },
          ],
          action_contract: {
            contract_version: 1,
            enforcement: 'balanced',
            authorization: { requires_user: ['action:install_local'] },
          },
        },
        [
          { kind: 'shell', command: 'rm -r ./build' },
          { kind: 'shell', command: 'echo unmatched >> ran.log' },
          { kind: 'shell', command: 'npm init -y >/dev/null && echo installed >> ran.log' },
        ],
      );
      const running = runAgent(sandbox);
      if (agent !== 'claude-code') {
        // Codex and Gemini CLI have no prompt a hook can hand over to: the call waits in Airlock
        // for a member, and runs once one approves.
        for await (const decision of airlock.member.decisions) {
          if (!decision.isApproval()) continue;
          expect(ranLines(sandbox)).toEqual(['unmatched']);
          await decision.approve();
          break;
        }
      }
      const run = await running;
      expect(run.timedOut, run.stderr).toBe(false);
      expect(existsSync(join(sandbox.project, 'build', 'artifact.txt'))).toBe(true);
      const outputs = sandbox.server.toolOutputs();
      expect(outputs[0]).toContain('keep build/');
      // All three calls reached the agent's tools, the requires_user one included.
      expect(outputs).toHaveLength(3);
      // Claude Code's own prompt is asked instead (native ask); headless (-p) nobody answers it.
      expect(ranLines(sandbox)).toEqual(
        agent === 'claude-code' ? ['unmatched'] : ['unmatched', 'installed'],
      );
      // The run story: the refused call with its reason, the one that ran with its output.
      const [story] = await airlock.member.runs.list({ limit: 1 });
      const tasks = await airlock.member.runs.run(story?.id ?? '').tasks();
      expect(tasks.slice(0, 2).map((task) => task.state)).toEqual(['failed', 'succeeded']);
      expect(tasks[0]?.error?.detail).toContain('keep build/');
      expect(JSON.stringify(tasks[1]?.result ?? null)).not.toBe('null');
    },
  );

  it.skipIf(missing)('shadow mode lets a forbidden action run and reminds the model', async () => {
    const { sandbox } = await setUp(
      {
        approval_mode: 'bypass',
        action_contract: {
          contract_version: 1,
          enforcement: 'shadow',
          authorization: { forbidden: ['action:destructive'] },
        },
      },
      [{ kind: 'shell', command: 'rm -r ./build' }],
    );
    const run = await runAgent(sandbox);
    expect(run.timedOut, run.stderr).toBe(false);
    expect(existsSync(join(sandbox.project, 'build'))).toBe(false);
    expect(laterTurns(sandbox)).toContain('would have been refused');
  });

  it.skipIf(missing)(
    'a stop hook continues the agent once, capped by max_continuations',
    async () => {
      const { sandbox, airlock } = await setUp(
        {
          approval_mode: 'rules',
          approval_rules: [{ tool: 'check_stop', verdict: 'allow', origin: 'kernel' }],
          lifecycle_hooks: {
            stop: { tool: 'check_stop', timeout_ms: 20_000, max_continuations: 1 },
          },
        },
        [
          { kind: 'text', text: 'first answer' },
          { kind: 'text', text: 'second answer' },
          { kind: 'text', text: 'third answer' },
        ],
      );
      let asked = 0;
      const executor = hold(
        createExecutor({
          url: airlock.kernel.url,
          token: airlock.kernel.workspace.tokens.executor,
          tools: {
            check_stop: () => {
              asked += 1;
              return { continue: true, feedback: `Run the tests first (${asked}).` };
            },
          },
        }),
      );
      await executor.ready;
      const run = await runAgent(sandbox, { prompt: 'Tidy up.' });
      expect(run.timedOut, run.stderr).toBe(false);
      // One continuation (the stop hook's feedback reached the model), then the cap let the agent stop.
      expect(sandbox.server.turns()).toHaveLength(2);
      expect(laterTurns(sandbox)).toContain('Run the tests first (1).');
    },
  );
});
