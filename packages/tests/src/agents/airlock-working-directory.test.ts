import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type AgentName, agentNames } from './agent-binaries.js';
import { createAgentSandbox, runAgent } from './agent-sandbox.js';
import { agentTests } from './agent-tests.js';
import { type AirlockKernel, guardSecrets } from './airlock-hooks.js';
import type { ScriptStep } from './model-servers/scripted-server.js';

// Each agent runs a shell command in a directory of its own choosing, each its own way: Claude
// Code keeps its Bash tool's directory from one call to the next (`cd secrets`, then `cat key`),
// Codex's exec_command takes a `workdir` (Codex 0.169 sends it as the hook's `cwd`), Gemini CLI's
// run_shell_command a `dir_path` (which its hook carries in the tool's input only). Under a deny
// of `secrets/**`, `cat key` made in secrets/ must not run unasked (a shell command that reaches a
// guarded path is put to a person) and the key never reaches the model, while the same `cat key`
// made in src/ runs: the rule is read from where the command runs.
const SECRET = 'TOPSECRET-4711';

/** Approves the first call waiting for a person, through the member's SDK. */
async function approveWaiting(airlock: AirlockKernel): Promise<void> {
  for await (const decision of airlock.member.decisions) {
    if (!decision.isApproval()) continue;
    await decision.approve();
    return;
  }
}

/**
 * `cat key` made in secrets/, then in src/, each agent its own way. Claude Code's `cd secrets`
 * is itself put to a person (it enters a guarded directory): it is refused once the hook's wait
 * ends, a member approves it, and the identical retry runs, so Claude Code's next call runs there.
 */
function script(agent: AgentName, airlock: () => AirlockKernel): ScriptStep[] {
  if (agent === 'claude-code') {
    return [
      { kind: 'shell', command: 'cd secrets' },
      { kind: 'shell', command: 'cd secrets', before: () => approveWaiting(airlock()) },
      { kind: 'shell', command: 'cat key' },
      { kind: 'shell', command: 'cd ../src' },
      { kind: 'shell', command: 'cat key' },
    ];
  }
  if (agent === 'codex') {
    return ['secrets', 'src'].map((workdir) => ({
      kind: 'tool' as const,
      name: 'exec_command',
      input: { cmd: 'cat key', workdir },
    }));
  }
  return ['secrets', 'src'].map((dir_path) => ({
    kind: 'tool' as const,
    name: 'run_shell_command',
    input: { command: 'cat key', dir_path },
  }));
}

describe.each(agentNames)(
  '%s: a shell call is judged from the directory it runs in',
  { timeout: 300_000 },
  (agent) => {
    const { missing, hold } = agentTests(agent);

    it.skipIf(missing)(
      'cat key in secrets/ waits for a person under a deny of secrets/** and never runs; in src/ it runs',
      async () => {
        let airlock: AirlockKernel | undefined;
        const sandbox = hold(
          await createAgentSandbox(
            agent,
            script(agent, () => airlock as AirlockKernel),
          ),
        );
        // Nobody approves: a park outlives the hook's short wait and the agent is refused.
        airlock = hold(
          await guardSecrets(sandbox, {
            'secrets/key': `${SECRET}\n`,
            'src/key': 'public\n',
          }),
        );
        const run = await runAgent(sandbox);
        expect(run.timedOut, run.stderr).toBe(false);
        const outputs = sandbox.server.toolOutputs();
        const everything = sandbox.server.requests.map((request) => request.raw).join('\n');
        // The key never reached the model; the model read that the call waits for a person.
        expect(everything, JSON.stringify(outputs)).not.toContain(SECRET);
        expect(outputs.join('\n'), JSON.stringify(outputs)).toContain(
          "waits for a person's approval",
        );
        // The same command from src/ ran (Claude Code: `cd ../src` then `cat key`).
        expect(outputs.at(-1), JSON.stringify(outputs)).toContain('public');
        // The person deciding sees the call, where it runs and the rule that put it to them.
        const [story] = await airlock.member.runs.list({ limit: 1 });
        const tasks = await airlock.member.runs.run(story?.id ?? '').tasks();
        const parked = tasks.filter((task) => task.state === 'needs_approval');
        expect(parked, JSON.stringify(tasks)).toHaveLength(1);
        expect(parked[0]?.tool_input).toMatchObject(
          agent === 'claude-code' ? { command: 'cat key' } : {},
        );
        expect(parked[0]?.working_directory).toBe(join(sandbox.project, 'secrets'));
        expect(parked[0]?.decision?.layers?.at(-1)?.detail).toContain('secrets/**');
        expect(tasks.at(-1)?.state).toBe('succeeded');
      },
    );
  },
);
