import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';

/**
 * A hook URL's `wait-0` waits for no person: a call that parks is answered
 * at once (refused, or deferred with `-defer`), as `wait-N` says, instead of
 * being held for the default wait of 100 s.
 */

const sqlite = (await backends()).find((backend) => backend.name === 'sqlite');

function preToolUse(d: Deployment, options: string, toolUseId: string) {
  return fetch(`${d.url}/agent_api/v1/hooks/claude-code/${options}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${d.tokens.agent}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      hook_event_name: 'PreToolUse',
      session_id: 'wait-zero',
      tool_name: 'Bash',
      tool_input: { command: `git push origin ${toolUseId}` },
      tool_use_id: toolUseId,
    }),
  });
}

describe.skipIf(!sqlite || sqlite.skip !== null)('a hook URL of wait-0', () => {
  let d: Deployment;
  afterEach(async () => {
    await d?.close();
  });

  it('answers a parked call without waiting for a person', { timeout: 60_000 }, async () => {
    if (!sqlite) throw new Error('no SQLite backend');
    d = await deploy(sqlite);
    await d.agent.put('/agent_api/v1/profile/configuration', { approval_mode: 'ask' });
    const refused = await preToolUse(d, 'wait-0', 'tu-1');
    expect(refused.status).toBe(200);
    const body = (await refused.json()) as Record<string, Record<string, string>>;
    expect(body.hookSpecificOutput?.permissionDecision).toBe('deny');
    expect(body.hookSpecificOutput?.permissionDecisionReason).toContain(
      "waits for a person's approval",
    );
    const deferred = await preToolUse(d, 'wait-0-defer', 'tu-2');
    const deferredBody = (await deferred.json()) as Record<string, Record<string, string>>;
    expect(deferredBody.hookSpecificOutput?.permissionDecision).toBe('defer');
  });
});
