import { claudeCode, defaultProfile, runHook } from '@airlock/hooks';
import { type Approval, createClient } from '@airlock/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestKernel, type TestKernel } from '../support/kernel.js';

describe('a hooked session through the SDK', () => {
  let kernel: TestKernel | undefined;
  afterEach(async () => {
    await kernel?.close();
    kernel = undefined;
  });

  it('is a run like any other: its park is a decision, approved through run.decisions, and its story shows what ran', async () => {
    kernel = await startTestKernel();
    const k = kernel;
    const env = { AIRLOCK_URL: k.url, AIRLOCK_TOKEN: k.workspace.tokens.agent };
    const put = await fetch(`${k.url}/agent_api/v1/profile/configuration`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${env.AIRLOCK_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(defaultProfile('claude-code')),
    });
    expect(put.status).toBe(200);
    const payload = (event: string, extra: Record<string, unknown>) =>
      JSON.stringify({ session_id: 'sdk-1', hook_event_name: event, ...extra });
    const call = { tool_name: 'Bash', tool_input: { command: 'rm -r ./build' }, tool_use_id: 'u1' };

    const hook = runHook({
      protocol: claudeCode,
      input: payload('PreToolUse', call),
      env,
      waitMs: 15_000,
    });
    const ws = createClient({ url: k.url, token: k.workspace.tokens.member }).workspace(
      k.workspace.id,
    );
    const runId = await (async () => {
      for (;;) {
        const [decision] = await ws.decisions.list();
        if (decision) return decision.run_id;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    for await (const decision of ws.runs.run(runId).decisions) {
      const approval = decision as Approval;
      expect(approval.tool_name).toBe('Bash');
      expect(approval.tool_input).toEqual({ command: 'rm -r ./build' });
      expect(approval.effect_profile).toMatchObject({ origin: 'model' });
      await approval.approve();
      break;
    }
    const answered = JSON.parse((await hook).stdout).hookSpecificOutput;
    expect(answered.permissionDecision).toBe('allow');

    await runHook({
      protocol: claudeCode,
      input: payload('PostToolUse', { ...call, tool_response: { stdout: '', stderr: '' } }),
      env,
    });
    const run = await ws.runs.run(runId).get();
    expect(run.state).toBe('running');
    const events = await fetch(
      `${k.url}/api/v1/workspaces/${k.workspace.id}/runs/${runId}/events`,
      {
        headers: { authorization: `Bearer ${k.workspace.tokens.member}` },
      },
    ).then((r) => r.json());
    expect(events.events.map((e: { type: string }) => e.type)).toEqual(
      expect.arrayContaining(['task.parked', 'task.approved', 'task.claimed', 'task.succeeded']),
    );
  });
});
