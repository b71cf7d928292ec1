import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();
const sqlite = all.find((backend) => backend.name === 'sqlite' && backend.skip === null);

/**
 * An agent's native hook request (Claude Code's HTTP hook, the Codex and
 * Gemini CLI routes) is authenticated once, then held while its call waits
 * for a person. A credential revoked meanwhile must not take the call when a
 * member approves it: the held request answers with a refusal instead.
 */
describe.skipIf(!sqlite)('a native hook request whose credential is revoked while it waits', () => {
  let d: Deployment;
  afterEach(async () => {
    await d?.close();
  });

  it('is refused when the person approves, and the call is left unclaimed', async () => {
    d = await deploy(sqlite!);
    await d.agent.put('/agent_api/v1/profile/configuration', { approval_mode: 'ask' });
    const held = fetch(`${d.url}/agent_api/v1/hooks/claude-code/wait-20000`, {
      method: 'POST',
      headers: { authorization: `Bearer ${d.tokens.agent}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        hook_event_name: 'PreToolUse',
        session_id: 'revoked-1',
        tool_name: 'Bash',
        tool_input: { command: 'git push origin main' },
        tool_use_id: 'tu-1',
      }),
    }).then(async (answer) => ({ status: answer.status, body: await answer.json() }));
    const parked = await waitFor(
      async () => {
        const listed = (await d.member.get(`${d.ws}/decisions`)).body.decisions;
        return listed.length > 0 ? (listed[0] as { run_id: string; key: string }) : null;
      },
      { what: 'the held call parked' },
    );
    const self = await d.agent.get(`${d.ws}/credentials/self`);
    const revoked = await d.member.post(
      `${d.ws}/credentials/${self.body.credential_id}/revoke`,
      {},
    );
    expect(revoked.status).toBe(200);
    expect((await d.agent.get(`${d.ws}/credentials/self`)).status).toBe(401);
    const approved = await d.member.post(
      `${d.ws}/runs/${parked.run_id}/tasks/${parked.key}/approve`,
      {},
    );
    expect(approved.status).toBe(200);

    const answer = await held;
    expect(answer.status).toBe(200);
    expect(answer.body.hookSpecificOutput).toMatchObject({
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
    });
    expect(answer.body.hookSpecificOutput.permissionDecisionReason).toContain(
      'the credential was revoked while the hook waited',
    );
    const row = (await d.member.get(`${d.ws}/runs/${parked.run_id}/tasks/${parked.key}`)).body;
    expect(row.state).toBe('runnable');
  });
});
