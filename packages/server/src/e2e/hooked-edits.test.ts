import { claudeCode, codex, decide } from '@airlock/hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();
const EVENTS = '/agent_api/v1/hooks/events';

describe('approve with changes in a hooked Claude Code session', () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deploy(sqlite!);
    await d.agent.put('/agent_api/v1/profile/configuration', {
      approval_mode: 'rules',
      approval_rules: [
        { tool: 'Bash', path: 'command', match: 'git push*', verdict: 'ask' },
        { tool: 'Bash', path: 'command', match: '*--force*', verdict: 'deny', reason: 'no force' },
      ],
    });
  });
  afterAll(async () => {
    await d.close();
  });

  const push = (command: string, extra: Record<string, unknown> = {}) =>
    d.agent.post(EVENTS, {
      agent: 'claude-code',
      session_id: 's-edit',
      event: 'pre_tool',
      tool_name: 'Bash',
      tool_input: { command },
      tool_use_id: 'tu-1',
      ...extra,
    });

  it("answers the waiting hook with the person's edit as updatedInput, never a refused edit", async () => {
    const parked = await push('git push origin main');
    expect(parked.body).toMatchObject({ verdict: 'wait', task_key: 't1' });
    const task = `${d.ws}/runs/${parked.body.run_id}/tasks/t1`;
    const refused = await d.member.post(`${task}/approve`, {
      tool_input: { command: 'git push --force origin main' },
    });
    expect(refused.body.error.code).toBe('edit_refused');
    const approved = await d.member.post(`${task}/approve`, {
      tool_input: { command: 'git push origin feature' },
    });
    expect(approved.body.state).toBe('runnable');
    const answer = await push('git push origin main', { task_key: 't1' });
    expect(answer.body).toMatchObject({
      verdict: 'allow',
      task_key: 't1',
      updated_input: { command: 'git push origin feature' },
    });
    // What Claude Code reads: the allow carries the edit, so the agent runs what the person approved.
    const event = claudeCode.parse({
      session_id: 's-edit',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'git push origin main' },
    })!;
    const written = JSON.parse(
      claudeCode.format(event, {
        kind: 'allow',
        context: null,
        updatedInput: answer.body.updated_input,
      }).stdout,
    );
    expect(written.hookSpecificOutput).toMatchObject({
      permissionDecision: 'allow',
      updatedInput: { command: 'git push origin feature' },
    });
  });

  it('refuses an edited call to an agent that cannot replace the input (Codex), naming the edit', async () => {
    const call = {
      agent: 'codex' as const,
      session_id: 's-codex',
      event: 'pre_tool' as const,
      tool_name: 'Bash',
      tool_input: { command: 'git push origin main' },
      tool_use_id: 'tu-c1',
    };
    const parked = await d.agent.post(EVENTS, call);
    expect(parked.body).toMatchObject({ verdict: 'wait' });
    const task = `${d.ws}/runs/${parked.body.run_id}/tasks/${parked.body.task_key}`;
    expect(
      (await d.member.post(`${task}/approve`, { tool_input: { command: 'git push origin dev' } }))
        .body.state,
    ).toBe('runnable');
    const reply = await decide(codex, call, {
      kernel: { url: d.url, token: d.tokens.agent },
      waitMs: 5000,
    });
    expect(reply.kind).toBe('deny');
    expect(reply.kind === 'deny' && reply.reason).toContain('{"command":"git push origin dev"}');
  });
});
