import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type AgentSandbox, createAgentSandbox, runAgent } from './agent-sandbox.js';
import { agentTests } from './agent-tests.js';
import { type AirlockKernel, installAirlockHooks, startAirlockKernel } from './airlock-hooks.js';

// Claude Code headless pauses durably on a park: the hook answers `defer`, the run ends with
// `tool_deferred`, a person decides in Airlock, and `claude -p --resume <session>` asks again.
const COMMAND = 'echo parked >> ran.log';
const RULES = [{ tool: 'Bash', path: 'command', match: 'echo parked*', verdict: 'ask' }];

function ranLines(sandbox: AgentSandbox): string[] {
  const path = join(sandbox.project, 'ran.log');
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
}

/** The JSON result Claude Code prints with `--output-format json`. */
function resultOf(stdout: string): Record<string, unknown> {
  const line = stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(line) as Record<string, unknown>;
}

async function waitingDecision(airlock: AirlockKernel) {
  for await (const decision of airlock.member.decisions) {
    if (decision.isApproval()) return decision;
  }
  throw new Error('the decisions feed ended');
}

describe('Claude Code with parks deferred (--defer)', { timeout: 300_000 }, () => {
  const { missing, hold } = agentTests('claude-code');

  async function deferredRun() {
    const airlock = hold(await startAirlockKernel());
    await airlock.setProfile({ approval_mode: 'rules', approval_rules: RULES });
    const sandbox = hold(
      await createAgentSandbox('claude-code', [{ kind: 'shell', command: COMMAND }]),
    );
    installAirlockHooks(sandbox, airlock, { defer: true });
    const first = await runAgent(sandbox);
    expect(first.timedOut, first.stderr).toBe(false);
    return { airlock, sandbox, first: resultOf(first.stdout) };
  }

  it.skipIf(missing)(
    'a park ends the run as deferred; approved in Airlock, the resumed session runs it once',
    async () => {
      const { airlock, sandbox, first } = await deferredRun();
      expect(first.stop_reason).toBe('tool_deferred');
      expect(ranLines(sandbox)).toEqual([]);
      const decision = await waitingDecision(airlock);
      await decision.approve();
      const resumed = await runAgent(sandbox, {
        prompt: 'Go on.',
        extraArgs: ['--resume', String(first.session_id)],
      });
      expect(resumed.timedOut, resumed.stderr).toBe(false);
      expect(ranLines(sandbox)).toEqual(['parked']);
      // The resumed turn is a run of its own; the approved row of the first run is the one that ran.
      const runs = await airlock.member.runs.list({ limit: 5 });
      const tasks = (
        await Promise.all(runs.map((run) => airlock.member.runs.run(run.id).tasks()))
      ).flat();
      expect(tasks.map((task) => task.decided_by?.startsWith('member:'))).toEqual([true]);
      expect(tasks.map((task) => task.state)).toEqual(['succeeded']);
    },
  );

  it.skipIf(missing)(
    'denied in Airlock while deferred, the resumed session never runs it and the model reads why',
    async () => {
      const { airlock, sandbox, first } = await deferredRun();
      expect(first.stop_reason).toBe('tool_deferred');
      const decision = await waitingDecision(airlock);
      await decision.deny({ reason: 'not during the freeze' });
      const resumed = await runAgent(sandbox, {
        prompt: 'Go on.',
        extraArgs: ['--resume', String(first.session_id)],
      });
      expect(resumed.timedOut, resumed.stderr).toBe(false);
      expect(ranLines(sandbox)).toEqual([]);
      expect(sandbox.server.toolOutputs().join('\n')).toContain('not during the freeze');
    },
  );
});
