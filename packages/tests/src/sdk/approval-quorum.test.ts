import { type Approval, createClient, isForbiddenError, isValidationError } from '@airlock/sdk';
import { createCredential } from '@airlock/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedRun, startTestKernel, type TestKernel } from '../support/kernel.js';

/** The first decision a member's SDK sees on a run. */
async function firstDecision(kernel: TestKernel, token: string, runId: string): Promise<Approval> {
  const run = createClient({ url: kernel.url, token })
    .workspace(kernel.workspace.id)
    .runs.run(runId);
  for await (const decision of run.decisions) {
    if (decision.isApproval()) return decision;
  }
  throw new Error('the run ended with nothing to approve');
}

describe('approval policies through the SDK', () => {
  let kernel: TestKernel;
  const tokens: Record<'ana' | 'bo' | 'cy', string> = { ana: '', bo: '', cy: '' };
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    kernel = await startTestKernel();
    for (const [who, label] of [
      ['ana', 'Ana Lima'],
      ['bo', 'Bo Chen'],
      ['cy', 'Cy Park'],
    ] as const) {
      const made = await createCredential(kernel.airlock.store, {
        workspaceId: kernel.workspace.id,
        kind: 'member',
        // Ana sets the approval policy, which is an admin's; Bo and Cy decide calls.
        role: who === 'ana' ? 'admin' : 'approver',
        label,
      });
      tokens[who] = made.token;
      ids[who] = made.credential.credential_id;
    }
    const put = await fetch(
      `${kernel.url}/api/v1/workspaces/${kernel.workspace.id}/approval_policy`,
      {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${tokens.ana}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          policy: {
            groups: { leads: [ids.ana, ids.bo] },
            rules: [{ actions: ['destructive'], approvers: ['group:leads'], required: 2 }],
          },
        }),
      },
    );
    expect(put.status).toBe(200);
  });
  afterAll(async () => {
    await kernel?.close();
  });

  const parkedRun = async (command: string) => {
    const rules = [{ tool: 'bash', path: 'command', match: '*curl*', verdict: 'deny' as const }];
    const agent = createClient({ url: kernel.url, token: kernel.workspace.tokens.agent }).workspace(
      kernel.workspace.id,
    );
    const created = await agent.runs.create(
      scriptedRun(
        'ask',
        [{ tool_calls: [{ name: 'bash', input: { command } }] }, { final: 'ok' }],
        rules,
      ),
    );
    return created.id;
  };

  it('a destructive call runs only after two distinct members approve; each SDK shows "1 of 2"', async () => {
    const runId = await parkedRun('rm -rf ./build');
    const byAna = await firstDecision(kernel, tokens.ana, runId);
    expect(byAna.approvals).toMatchObject({ required: 2, received: [] });
    const once = await byAna.approve();
    expect(once.state).toBe('needs_approval');
    expect(once.approvals?.received.map((r) => r.name)).toEqual(['Ana Lima']);
    // The same member again counts once.
    expect((await byAna.approve()).approvals?.received).toHaveLength(1);
    // A member the policy does not name is refused, and nothing changes.
    const byCy = await firstDecision(kernel, tokens.cy, runId);
    const refused = await byCy.approve().catch((error: unknown) => error);
    expect(isForbiddenError(refused) && refused.code).toBe('approver_not_allowed');
    const byBo = await firstDecision(kernel, tokens.bo, runId);
    expect(byBo.approvals?.received.map((r) => r.name)).toEqual(['Ana Lima']);
    const done = await byBo.approve();
    expect(done.state).toBe('runnable');
    expect(done.decided_by_name).toBe('Bo Chen');
  });

  it('approves an edited call; an edit a rule refuses, or one the member may not approve, changes nothing', async () => {
    const runId = await parkedRun('ls ./build');
    const byCy = await firstDecision(kernel, tokens.cy, runId);
    const refused = await byCy
      .approve({ tool_input: { command: 'curl https://example.com/x.sh' } })
      .catch((error: unknown) => error);
    expect(isValidationError(refused) && refused.code).toBe('edit_refused');
    // Cy may approve a read; edited into a destructive call it is the leads' to decide.
    const escalated = await byCy
      .approve({ tool_input: { command: 'rm -rf ./build' } })
      .catch((error: unknown) => error);
    expect(isForbiddenError(escalated) && escalated.code).toBe('approver_not_allowed');
    const again = await firstDecision(kernel, tokens.cy, runId);
    expect(again.tool_input).toEqual({ command: 'ls ./build' });
    const edited = await again.approve({ tool_input: { command: 'ls ./build/cache' } });
    expect(edited.state).toBe('runnable');
    expect(edited.tool_input).toEqual({ command: 'ls ./build/cache' });
  });
});
