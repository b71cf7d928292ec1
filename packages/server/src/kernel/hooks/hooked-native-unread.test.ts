import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';

const [sqlite] = await backends();

/**
 * A payload the kernel's own hook endpoints cannot read as its event (a
 * tool event with no tool name) is answered in that event's shape: a tool
 * check is refused; a report of a call that ran passes with a note, since a
 * refusal there tells the model the call failed (Gemini CLI replaces the
 * tool's result with it) and Claude Code rejects an answer naming another
 * event than its own.
 */
describe("an agent's payload the kernel cannot read", () => {
  let d: Deployment;
  afterEach(async () => {
    await d?.close();
  });

  const hook = async (path: string, payload: Record<string, unknown>) => {
    const response = await d.agent.post(`/agent_api/v1/hooks/${path}/wait-1000`, {
      session_id: 's-1',
      tool_input: { command: 'make' },
      ...payload,
    });
    expect(response.status).toBe(200);
    return response.body as Record<string, unknown>;
  };

  it('a report with no tool name passes with a note, in its own event', async () => {
    d = await deploy(sqlite as NonNullable<typeof sqlite>);
    for (const [path, name] of [
      ['claude-code', 'PostToolUse'],
      ['claude-code', 'PostToolUseFailure'],
      ['codex', 'PostToolUse'],
      ['gemini', 'AfterTool'],
    ] as const) {
      const body = await hook(path, { hook_event_name: name, tool_response: 'built' });
      expect(body).toEqual({
        systemMessage: expect.stringMatching(
          /^Airlock could not read the hook payload: the \w+ payload has no tool_name\. The call ran/,
        ),
      });
    }
  });

  it('a tool check with no tool name is still refused, in its own shape', async () => {
    d = await deploy(sqlite as NonNullable<typeof sqlite>);
    expect(await hook('claude-code', { hook_event_name: 'PreToolUse' })).toEqual({
      hookSpecificOutput: expect.objectContaining({
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
      }),
    });
    expect(await hook('gemini', { hook_event_name: 'BeforeTool' })).toEqual({
      decision: 'deny',
      reason: expect.stringMatching(/no tool_name/),
    });
  });
});
