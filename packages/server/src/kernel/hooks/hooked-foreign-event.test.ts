import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';

/**
 * A hook entry copied from another agent's settings posts that agent's tool check to an
 * endpoint that reads another format: Claude Code's PreToolUse to the gemini endpoint, Gemini
 * CLI's BeforeTool to the claude-code one. Answered `{}`, the agent would run the call with no
 * decision; the kernel refuses it in the sending agent's own shape. Events of no tool check
 * (a prompt, a notification) still pass.
 */

const available = (await backends()).filter((backend) => backend.skip === null);

describe.each(available)("another agent's tool check at an agent's endpoint ($name)", (backend) => {
  let d: Deployment;
  afterEach(async () => {
    await d?.close();
  });

  it('is refused in the shape of the agent that sent it, and runs nothing', async () => {
    d = await deploy(backend);
    await d.agent.put('/agent_api/v1/profile/configuration', {
      approval_mode: 'rules',
      approval_rules: [{ tool: '*', verdict: 'allow' }],
    });
    const claudeAtGemini = await d.agent.post('/agent_api/v1/hooks/gemini/default', {
      session_id: 'copied-1',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'rm -r ./build' },
      tool_use_id: 'tu-1',
    });
    expect(claudeAtGemini.status).toBe(200);
    expect(claudeAtGemini.body.hookSpecificOutput).toMatchObject({
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
    });
    expect(claudeAtGemini.body.hookSpecificOutput.permissionDecisionReason).toContain(
      'airlock hooks install',
    );
    const geminiAtClaude = await d.agent.post('/agent_api/v1/hooks/claude-code/default', {
      session_id: 'copied-2',
      hook_event_name: 'BeforeTool',
      tool_name: 'run_shell_command',
      tool_input: { command: 'rm -r ./build' },
    });
    expect(geminiAtClaude.status).toBe(200);
    expect(geminiAtClaude.body).toMatchObject({ decision: 'deny' });
    // Nothing was planted: no run holds either call.
    expect((await d.member.get(`${d.ws}/runs`)).body.runs).toEqual([]);
    // An event that checks no tool passes as before.
    const notification = await d.agent.post('/agent_api/v1/hooks/gemini/default', {
      session_id: 'copied-3',
      hook_event_name: 'Notification',
      message: 'waiting',
    });
    expect(notification.body).toEqual({});
  });
});
