import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type AgentSandbox, createAgentSandbox, runAgent } from './agent-sandbox.js';
import { type AgentTests, agentTests } from './agent-tests.js';
import { type AirlockKernel, installAirlockHooks, startAirlockKernel } from './airlock-hooks.js';

// A call no hook asks or tells about: Airlock's entries for the tool events are gone (a person
// removed them, or narrowed their matcher), its turn and stop entries stay. At the turn's Stop the
// Node.js hook client reads the turn's calls from the agent's own transcript, and the kernel
// records each one that crossed no stage in the run story. Gemini CLI's hooks carry no call id:
// its transcript's calls go with their input, and the kernel matches them to rows by it.

/** Drops Airlock's tool-event entries from the agent's settings, keeping the others. */
function withoutToolHooks(sandbox: AgentSandbox): void {
  if (sandbox.agent === 'codex') {
    const path = join(sandbox.codexHome, 'config.toml');
    const sections = readFileSync(path, 'utf8').split('\n\n');
    const kept = sections.filter((section) => !/\[\[hooks\.(Pre|Post)ToolUse\]\]/.test(section));
    expect(kept.length).toBe(sections.length - 2);
    writeFileSync(path, kept.join('\n\n'));
    return;
  }
  const gemini = sandbox.agent === 'gemini';
  const path = join(sandbox.home, gemini ? '.gemini' : '.claude', 'settings.json');
  const settings = JSON.parse(readFileSync(path, 'utf8'));
  const events = gemini
    ? ['BeforeTool', 'AfterTool']
    : ['PreToolUse', 'PostToolUse', 'PostToolUseFailure'];
  for (const event of events) {
    expect(settings.hooks[event]).toBeDefined();
    delete settings.hooks[event];
  }
  writeFileSync(path, JSON.stringify(settings, null, 2));
}

/**
 * A kernel in bypass mode and a sandbox of `agent` whose model asks for `echo ONE` and `false`,
 * each held by `tests` as soon as it exists.
 */
async function startSession(
  agent: 'claude-code' | 'codex' | 'gemini',
  one: string,
  tests: AgentTests,
): Promise<{ airlock: AirlockKernel; sandbox: AgentSandbox }> {
  const airlock = tests.hold(await startAirlockKernel());
  await airlock.setProfile({ approval_mode: 'bypass', approval_rules: [] });
  const sandbox = tests.hold(
    await createAgentSandbox(agent, [
      { kind: 'shell', command: `echo ${one}` },
      { kind: 'shell', command: 'false' },
    ]),
  );
  return { airlock, sandbox };
}

/**
 * Runs two shell calls with Airlock's tool-event entries removed (installed with `client`) and
 * checks that the turn's story records both from the transcript, with what they did.
 */
async function expectUnhookedCallsRecorded(
  agent: 'claude-code' | 'codex' | 'gemini',
  client: 'node' | 'bash' | 'http',
  tests: AgentTests,
): Promise<void> {
  const { airlock, sandbox } = await startSession(agent, 'unhooked-one', tests);
  installAirlockHooks(
    sandbox,
    airlock,
    client === 'node' ? {} : client === 'http' ? { http: true } : { client },
  );
  withoutToolHooks(sandbox);
  const run = await runAgent(sandbox);
  expect(run.timedOut, run.stderr).toBe(false);
  expect(sandbox.server.toolOutputs()[0]).toContain('unhooked-one');

  const [turn] = await airlock.member.runs.list({ limit: 1 });
  expect(turn, 'the turn’s run (UserPromptSubmit is still hooked)').toBeDefined();
  expect(await airlock.member.runs.run(turn!.id).tasks()).toEqual([]);
  const events = await airlock.member.runs.run(turn!.id).events();
  const unstaged = events
    .filter((event) => event.type === 'run.unstaged_call')
    .map((event) => event.data as Record<string, unknown>);
  const shell = { codex: 'exec_command', gemini: 'run_shell_command', 'claude-code': 'Bash' }[
    agent
  ];
  expect(unstaged.map((data) => [data.tool_name, data.outcome, data.found_in])).toEqual([
    [shell, 'succeeded', 'transcript'],
    [shell, 'failed', 'transcript'],
  ]);
  expect(unstaged[0]?.output).toContain('unhooked-one');
  expect(unstaged[0]?.tool_use_id).toMatch(/scripted_0000/);
}

describe.each(['claude-code', 'codex', 'gemini'] as const)(
  '%s: calls that ran with no hook for them',
  { timeout: 300_000 },
  (agent) => {
    const tests = agentTests(agent);
    const { missing } = tests;

    it.skipIf(missing)('are recorded in the turn’s story from the transcript at Stop', async () => {
      await expectUnhookedCallsRecorded(agent, 'node', tests);
    });

    // The shell clients post each event as it is; the turn's end runs the Node.js client.
    it.skipIf(missing)(
      'are recorded too when the tool events went through the bash client',
      async () => {
        await expectUnhookedCallsRecorded(agent, 'bash', tests);
      },
    );

    // Only Claude Code has HTTP hooks.
    if (agent === 'claude-code') {
      it.skipIf(missing)('are recorded too when the other events are HTTP hooks', async () => {
        await expectUnhookedCallsRecorded(agent, 'http', tests);
      });
    }

    it.skipIf(missing)(
      'with every hook in place, no call counts as unseen; the transcript only corrects a failure',
      async () => {
        const { airlock, sandbox } = await startSession(agent, 'hooked-one', tests);
        installAirlockHooks(sandbox, airlock);
        const run = await runAgent(sandbox);
        expect(run.timedOut, run.stderr).toBe(false);
        const [turn] = await airlock.member.runs.list({ limit: 1 });
        const tasks = await airlock.member.runs.run(turn!.id).tasks();
        // Codex 0.169's PostToolUse carries the command's output and no exit code: its report of
        // `false` reads as succeeded, and the turn's end fails the row from the transcript.
        expect(tasks.map((task) => task.state)).toEqual(['succeeded', 'failed']);
        // The hooks' call ids are the transcript's: no call is counted twice.
        const events = await airlock.member.runs.run(turn!.id).events();
        expect(events.filter((event) => event.type === 'run.unstaged_call')).toEqual([]);
      },
    );
  },
);
