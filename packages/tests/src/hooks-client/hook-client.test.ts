import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { claudeCode, codex, gemini, runHook } from '@airlock/hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestKernel, type TestKernel } from '../support/kernel.js';

const PROFILE = {
  approval_mode: 'rules',
  approval_rules: [
    {
      tool: 'Bash|run_shell_command',
      path: 'command',
      match: 'rm *',
      verdict: 'deny',
      reason: 'no deletes here',
    },
    { tool: 'Bash|run_shell_command', path: 'command', match: 'ls*', verdict: 'allow' },
    { tool: 'Bash|run_shell_command', path: 'command', match: 'git push*', verdict: 'ask' },
  ],
};

const claudePre = (command: string, id: string) =>
  JSON.stringify({
    session_id: 'cc-1',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command },
    tool_use_id: id,
  });

describe('the hook client against a real kernel', () => {
  let kernel: TestKernel | undefined;
  afterEach(async () => {
    await kernel?.close();
    kernel = undefined;
  });

  async function start() {
    kernel = await startTestKernel();
    const env = { AIRLOCK_URL: kernel.url, AIRLOCK_TOKEN: kernel.workspace.tokens.agent };
    await fetch(`${kernel.url}/agent_api/v1/profile/configuration`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${env.AIRLOCK_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(PROFILE),
    });
    return { kernel, env };
  }

  const decision = (stdout: string) => JSON.parse(stdout).hookSpecificOutput;

  it('answers each agent in its own format: refused, granted', async () => {
    const { env } = await start();
    const denied = await runHook({
      protocol: claudeCode,
      input: claudePre('rm -r ./build', 'a'),
      env,
    });
    expect(decision(denied.stdout)).toMatchObject({
      permissionDecision: 'deny',
      permissionDecisionReason: 'Airlock refused this call: no deletes here',
    });
    const granted = await runHook({ protocol: codex, input: claudePre('ls', 'b'), env });
    expect(decision(granted.stdout).permissionDecision).toBe('allow');
    const geminiDenied = await runHook({
      protocol: gemini,
      input: JSON.stringify({
        session_id: 'g-1',
        hook_event_name: 'BeforeTool',
        tool_name: 'run_shell_command',
        tool_input: { command: 'rm -rf /tmp/x' },
      }),
      env,
    });
    expect(JSON.parse(geminiDenied.stdout)).toEqual({
      decision: 'deny',
      reason: 'Airlock refused this call: no deletes here',
    });
  });

  it('a park decided within the wait answers allow; past the wait, deny with the waiting reason, then the retry runs once', async () => {
    const { kernel: k, env } = await start();
    const member = { authorization: `Bearer ${k.workspace.tokens.member}` };
    const ws = `${k.url}/api/v1/workspaces/${k.workspace.id}`;
    const approveSoon = (async () => {
      for (;;) {
        const list = await (await fetch(`${ws}/decisions`, { headers: member })).json();
        const item = (list.decisions ?? list.items ?? [])[0];
        if (item) {
          await fetch(`${ws}/runs/${item.run_id}/tasks/${item.task_key ?? item.key}/approve`, {
            method: 'POST',
            headers: { ...member, 'content-type': 'application/json' },
            body: '{}',
          });
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const waited = await runHook({
      protocol: claudeCode,
      input: claudePre('git push origin main', 'p1'),
      env,
      waitMs: 10_000,
    });
    await approveSoon;
    expect(decision(waited.stdout).permissionDecision).toBe('allow');

    const started = Date.now();
    const gaveUp = await runHook({
      protocol: claudeCode,
      input: claudePre('git push origin dev', 'p2'),
      env,
      waitMs: 400,
    });
    // The call stays parked for 24 h: a client that ignored its wait would hang here. The bound
    // leaves room for a node start on a loaded machine (the wait itself is 400 ms).
    expect(Date.now() - started).toBeLessThan(10_000);
    const refused = decision(gaveUp.stdout);
    expect(refused.permissionDecision).toBe('deny');
    expect(refused.permissionDecisionReason).toContain("waits for a person's approval");
    expect(refused.permissionDecisionReason).toContain('retry the identical call');
    const runId = /run (\S+), task (t\d+)/.exec(refused.permissionDecisionReason);
    expect(runId).not.toBeNull();
    await fetch(`${ws}/runs/${runId?.[1]}/tasks/${runId?.[2]}/approve`, {
      method: 'POST',
      headers: { ...member, 'content-type': 'application/json' },
      body: '{}',
    });
    const retried = await runHook({
      protocol: claudeCode,
      input: claudePre('git push origin dev', 'p3'),
      env,
      waitMs: 400,
    });
    expect(decision(retried.stdout).permissionDecision).toBe('allow');
    const again = await runHook({
      protocol: claudeCode,
      input: claudePre('git push origin dev', 'p4'),
      env,
      waitMs: 300,
    });
    expect(decision(again.stdout).permissionDecision).toBe('deny');
  });

  it('a headless Claude Code park defers; the resumed hook asks about the same call again', async () => {
    const { kernel: k, env } = await start();
    const deferred = await runHook({
      protocol: claudeCode,
      input: claudePre('git push origin main', 'd1'),
      env,
      defer: true,
    });
    const parked = decision(deferred.stdout);
    expect(parked.permissionDecision).toBe('defer');
    const where = /run (\S+), task (t\d+)/.exec(parked.permissionDecisionReason);
    await fetch(
      `${k.url}/api/v1/workspaces/${k.workspace.id}/runs/${where?.[1]}/tasks/${where?.[2]}/approve`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${k.workspace.tokens.member}`,
          'content-type': 'application/json',
        },
        body: '{}',
      },
    );
    // `claude -p --resume` runs PreToolUse again for the same tool_use_id.
    const resumed = await runHook({
      protocol: claudeCode,
      input: claudePre('git push origin main', 'd1'),
      env,
      defer: true,
    });
    expect(decision(resumed.stdout).permissionDecision).toBe('allow');
  });

  it('denies every tool call when the kernel is stopped, unreachable, slow or refuses the credential', async () => {
    const { kernel: k, env } = await start();
    await k.airlock.close();
    for (const protocol of [claudeCode, codex]) {
      const output = await runHook({ protocol, input: claudePre('ls', 'k1'), env });
      expect(decision(output.stdout).permissionDecision).toBe('deny');
      expect(decision(output.stdout).permissionDecisionReason).toContain('could not decide');
    }
    const geminiOut = await runHook({
      protocol: gemini,
      input: JSON.stringify({
        session_id: 'g',
        hook_event_name: 'BeforeTool',
        tool_name: 'run_shell_command',
        tool_input: { command: 'ls' },
      }),
      env,
    });
    expect(JSON.parse(geminiOut.stdout).decision).toBe('deny');
    await k.restart();

    // A kernel that accepts the connection but never answers: denied within the wait.
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    const started = Date.now();
    const slow = await runHook({
      protocol: claudeCode,
      input: claudePre('ls', 'k2'),
      env: { ...env, AIRLOCK_URL: `http://127.0.0.1:${port}` },
      waitMs: 500,
    });
    // The silent kernel never answers: a client without its own deadline would hang here.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(decision(slow.stdout).permissionDecision).toBe('deny');
    silent.closeAllConnections();
    silent.close();

    const wrongPlane = await runHook({
      protocol: claudeCode,
      input: claudePre('ls', 'k3'),
      env: { ...env, AIRLOCK_TOKEN: k.workspace.tokens.member },
    });
    expect(decision(wrongPlane.stdout).permissionDecision).toBe('deny');
    const noConfig = await runHook({
      protocol: claudeCode,
      input: claudePre('ls', 'k4'),
      env: { AIRLOCK_HOOKS_CONFIG: '/nonexistent/hooks.json' },
    });
    expect(decision(noConfig.stdout).permissionDecisionReason).toContain('no kernel URL');
    const garbage = await runHook({
      protocol: claudeCode,
      input: '{"hook_event_name":"PreToolUse"',
      env,
    });
    expect(garbage.exitCode).toBe(2);
  });

  it('reads hook events far past the body limit: a long command is decided, a long output recorded', async () => {
    const { kernel: k, env } = await start();
    const post = (body: string) =>
      fetch(`${k.url}/agent_api/v1/hooks/claude-code/default`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${env.AIRLOCK_TOKEN}`,
          'content-type': 'application/json',
        },
        body,
      });
    // Twice the kernel's 1 MiB body limit: a check and a report as Claude Code sends them.
    const command = `ls ${'a'.repeat(2 << 20)}`;
    const checked = await post(claudePre(command, 'big1'));
    expect(checked.status).toBe(200);
    expect((await checked.json()).hookSpecificOutput.permissionDecision).toBe('allow');
    const reported = await post(
      JSON.stringify({
        session_id: 'cc-1',
        hook_event_name: 'PostToolUse',
        tool_name: 'Bash',
        tool_input: { command },
        tool_use_id: 'big1',
        tool_response: { stdout: 'line\n'.repeat(600_000), stderr: '', interrupted: false },
      }),
    );
    expect(reported.status).toBe(200);
    const row = await k.airlock.store.db
      .selectFrom('tasks')
      .select(['state', 'result'])
      .where('tool_call_id', '=', 'big1')
      .executeTakeFirstOrThrow();
    expect(row.state).toBe('succeeded');
    // What ran is on the row, cut to what the kernel keeps.
    expect(row.result).toContain('line');
    expect(row.result!.length).toBeLessThan(64 * 1024);
    // Past the hook limit (16 MiB), a check is refused in Claude Code's own format: its long
    // strings are read cut, and a cut command is not the one that would run.
    const huge = await post(claudePre(`ls ${'a'.repeat(17 << 20)}`, 'big2'));
    expect(huge.status).toBe(200);
    expect((await huge.json()).hookSpecificOutput).toMatchObject({
      permissionDecision: 'deny',
      permissionDecisionReason: expect.stringContaining('too large to check'),
    });
  });

  it("answers Claude Code's HTTP hook in the kernel itself, in Claude Code's shape", async () => {
    const { kernel: k, env } = await start();
    const post = (body: string, options = 'default') =>
      fetch(`${k.url}/agent_api/v1/hooks/claude-code/${options}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${env.AIRLOCK_TOKEN}`,
          'content-type': 'application/json',
        },
        body,
      });
    const denied = await post(claudePre('rm -r ./build', 'h1'));
    expect(denied.status).toBe(200);
    expect((await denied.json()).hookSpecificOutput).toMatchObject({
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
      permissionDecisionReason: 'Airlock refused this call: no deletes here',
    });
    const granted = await post(claudePre('ls', 'h2'));
    expect((await granted.json()).hookSpecificOutput.permissionDecision).toBe('allow');
    const waited = await post(claudePre('git push origin main', 'h3'), 'wait-300');
    const reason = (await waited.json()).hookSpecificOutput;
    expect(reason.permissionDecision).toBe('deny');
    expect(reason.permissionDecisionReason).toContain("waits for a person's approval");
    const deferred = await post(claudePre('git push origin main', 'h3'), 'wait-300-defer');
    expect((await deferred.json()).hookSpecificOutput.permissionDecision).toBe('defer');
    const other = await post(
      JSON.stringify({ session_id: 'cc-1', hook_event_name: 'Notification' }),
    );
    expect(await other.json()).toEqual({});
    const badOptions = await post(claudePre('ls', 'h5'), 'wait-forever');
    expect(badOptions.status).toBe(400);
    const wrongPlane = await fetch(`${k.url}/agent_api/v1/hooks/claude-code/default`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${k.workspace.tokens.member}`,
        'content-type': 'application/json',
      },
      body: claudePre('ls', 'h4'),
    });
    expect(wrongPlane.status).toBe(403);
  });
});
