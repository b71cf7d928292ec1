import { claudeCode, runHook } from '@airlock/hooks';
import { describe, expect, it, type TestContext } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';

/**
 * A park that outlives the hook's wait is refused with a reason the model
 * relays to its user: where to decide. The inbox it names is the page the
 * kernel serves, not a path the kernel answers 404; the kernel's own
 * endpoint, which does not know the address the agent used, names no address.
 */

const [sqlite] = await backends();

// Each case has a kernel of its own and waits out a hook's wait (real time): side by side.
describe.concurrent('the waiting reason of a park that outlived the hook', () => {
  /** A kernel whose agent's calls park (ask mode); closed with the test. */
  async function askingDeployment(
    onTestFinished: TestContext['onTestFinished'],
  ): Promise<Deployment> {
    const d = await deploy(sqlite!);
    onTestFinished(() => d.close());
    await d.agent.put('/agent_api/v1/profile/configuration', { approval_mode: 'ask' });
    return d;
  }

  it("names the kernel's inbox page", async ({ onTestFinished }) => {
    const d = await askingDeployment(onTestFinished);
    const env = { AIRLOCK_URL: `${d.url}/`, AIRLOCK_TOKEN: d.tokens.agent, HOME: '/nonexistent' };
    const answered = await runHook({
      protocol: claudeCode,
      env,
      // Long enough for the first answer on a loaded machine (a shorter wait times the request out).
      waitMs: 3000,
      input: JSON.stringify({
        session_id: 's1',
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'make deploy' },
        tool_use_id: 'tu-1',
      }),
    });
    const reason = JSON.parse(answered.stdout).hookSpecificOutput
      .permissionDecisionReason as string;
    const inbox = /in the Airlock inbox \((\S+)\)/.exec(reason)?.[1];
    expect(inbox).toBe(`${d.url}/`);
    // The inbox page, built or not (a 503 that says how to build it), never a 404.
    const page = await fetch(inbox as string);
    expect(page.status).not.toBe(404);
    expect(page.headers.get('content-type')).toMatch(/^text\/(html|plain)/);
  });

  it('from the native endpoint names the inbox once, with no address it does not know', async ({
    onTestFinished,
  }) => {
    const d = await askingDeployment(onTestFinished);
    const answer = await fetch(`${d.url}/agent_api/v1/hooks/claude-code/wait-1000`, {
      method: 'POST',
      headers: { authorization: `Bearer ${d.tokens.agent}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        hook_event_name: 'PreToolUse',
        session_id: 's2',
        tool_name: 'Bash',
        tool_input: { command: 'make deploy' },
        tool_use_id: 'tu-1',
      }),
    });
    const reason = (await answer.json()).hookSpecificOutput.permissionDecisionReason as string;
    expect(reason).toContain('approve or deny it in the Airlock inbox, the SDK or the CLI');
  });
});
