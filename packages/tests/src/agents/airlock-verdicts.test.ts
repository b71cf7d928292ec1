import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TaskView } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';
import { agentNames } from './agent-binaries.js';
import { type AgentSandbox, createAgentSandbox, runAgent } from './agent-sandbox.js';
import { agentTests } from './agent-tests.js';
import { type AirlockKernel, installAirlockHooks, startAirlockKernel } from './airlock-hooks.js';
import type { ScriptStep } from './model-servers/scripted-server.js';

// The real agents with Airlock's hook client in front of them: what the kernel decides is what runs.
const SHELL = 'Bash|run_shell_command';
const RULES = [
  {
    tool: SHELL,
    path: 'command',
    match: 'rm *',
    verdict: 'deny',
    reason: 'build output stays until release',
  },
  { tool: SHELL, path: 'command', match: 'echo granted*', verdict: 'allow' },
  { tool: SHELL, path: 'command', match: 'echo parked*', verdict: 'ask' },
];

/** Lines the scripted commands appended to ran.log: each line is one real execution. */
function ranLines(sandbox: AgentSandbox): string[] {
  const path = join(sandbox.project, 'ran.log');
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
}

/** The first decision waiting in the workspace, read through the member's SDK. */
async function nextDecision(airlock: AirlockKernel) {
  for await (const decision of airlock.member.decisions) {
    if (decision.isApproval()) return decision;
  }
  throw new Error('the decisions feed ended');
}

async function runTasks(airlock: AirlockKernel): Promise<TaskView[]> {
  const [run] = await airlock.member.runs.list({ limit: 1 });
  if (!run) throw new Error('no run');
  return airlock.member.runs.run(run.id).tasks();
}

describe.each(agentNames)('%s through Airlock', { timeout: 300_000 }, (agent) => {
  const { missing, hold } = agentTests(agent);

  async function setUp(script: ScriptStep[], waitMs?: number) {
    const airlock = hold(await startAirlockKernel());
    await airlock.setProfile({ approval_mode: 'rules', approval_rules: RULES });
    const sandbox = hold(await createAgentSandbox(agent, script));
    // Through the `airlock` command itself: the other agent tests call what it runs in process.
    installAirlockHooks(
      sandbox,
      airlock,
      waitMs === undefined ? { cli: true } : { waitMs, cli: true },
    );
    return { airlock, sandbox };
  }

  // One session per pair of verdicts: each agent run costs seconds, the second call almost nothing.
  it.skipIf(missing)(
    'a denied rm -r leaves build/ intact and the model reads the reason; a granted command then runs once, and the run story shows what ran',
    async () => {
      const { sandbox, airlock } = await setUp([
        { kind: 'shell', command: 'rm -r ./build' },
        { kind: 'shell', command: 'echo granted >> ran.log && echo story-output' },
      ]);
      const run = await runAgent(sandbox);
      expect(run.timedOut, run.stderr).toBe(false);
      expect(existsSync(join(sandbox.project, 'build', 'artifact.txt'))).toBe(true);
      const [refused, granted] = sandbox.server.toolOutputs();
      expect(refused).toContain('build output stays until release');
      expect(granted).toContain('story-output');
      expect(ranLines(sandbox)).toEqual(['granted']);
      const tasks = await runTasks(airlock);
      const ran = tasks.filter((task) => task.state === 'succeeded');
      expect(ran).toHaveLength(1);
      expect(JSON.stringify(ran[0]?.result)).toContain('story-output');
      expect(ran[0]?.tool_input).toMatchObject({ command: expect.stringContaining('granted') });
      // The agent reports no run of the refused call: the story records none.
      const [turn] = await airlock.member.runs.list({ limit: 1 });
      const events = await airlock.member.runs.run(turn!.id).events();
      expect(events.filter((event) => event.type === 'run.unstaged_call')).toEqual([]);
    },
  );

  it.skipIf(missing)(
    'a parked command runs exactly once after a member approves through the SDK; the next one, denied, never runs and the model reads why',
    async () => {
      const { sandbox, airlock } = await setUp([
        { kind: 'shell', command: 'echo parked-approved >> ran.log' },
        { kind: 'shell', command: 'echo parked-denied >> ran.log' },
      ]);
      const running = runAgent(sandbox);
      const approval = await nextDecision(airlock);
      expect(ranLines(sandbox)).toEqual([]);
      await approval.approve();
      const denial = await nextDecision(airlock);
      expect(ranLines(sandbox)).toEqual(['parked-approved']);
      await denial.deny({ reason: 'not on a Friday' });
      const run = await running;
      expect(run.timedOut, run.stderr).toBe(false);
      expect(ranLines(sandbox)).toEqual(['parked-approved']);
      expect(sandbox.server.toolOutputs()[1]).toContain('not on a Friday');
    },
  );

  it.skipIf(missing)(
    'a park outliving the hook is refused with the waiting reason; the identical retry after approval runs once',
    async () => {
      let approve: () => Promise<void> = async () => {};
      const command = 'echo parked >> ran.log';
      const { sandbox, airlock } = await setUp(
        [
          { kind: 'shell', command },
          { kind: 'shell', command, before: () => approve() },
        ],
        1500,
      );
      approve = async () => {
        const decision = await nextDecision(airlock);
        await decision.approve();
      };
      const run = await runAgent(sandbox);
      expect(run.timedOut, run.stderr).toBe(false);
      const [refused, retried] = sandbox.server.toolOutputs();
      expect(refused).toContain("waits for a person's approval");
      expect(retried).not.toContain('Airlock');
      expect(ranLines(sandbox)).toEqual(['parked']);
    },
  );
});
