import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replaceOverlay } from '../store/overlays.js';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

/*
 * A deny's reason is policy text, kept as JSON where it was declared; the refused row keeps it
 * as text, the detail the model reads. The doors refuse a reason holding NUL now (policy-text.ts),
 * but a document an earlier version stored may hold one (which PostgreSQL refuses in text): it is
 * kept as U+FFFD, so the call is refused alike on every store instead of failing the whole round.
 */
for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(`a refusal's detail (${backend.name})`, () => {
    let d: Deployment;
    beforeAll(async () => {
      d = await deploy(backend);
    });
    afterAll(async () => {
      await d?.close();
    });

    it("keeps a stored guardrail's reason holding NUL with U+FFFD in its place", async () => {
      const own = (await d.member.get(`${d.ws}/overlays/user/me`)).body;
      // Written past the door, as an earlier version that took NUL would have stored it.
      await d.airlock.store.transaction((tx) =>
        replaceOverlay(
          tx,
          { workspaceId: d.workspaceId, scope: 'user', ownerId: own.owner_id },
          {
            expectedDigest: own.digest,
            by: own.owner_id,
            document: [
              {
                ruleSetId: 'supervised',
                rules: [
                  { verdict: 'deny', guardrail: true, tools: ['deploy'], reason: 'never\u0000' },
                ],
              },
            ],
          },
        ),
      );
      const created = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'bypass',
        input: 'go',
        provider: {
          kind: 'scripted',
          rounds: [{ tool_calls: [{ name: 'deploy', input: {} }] }, { final: 'done' }],
        },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const row = await waitFor(async () => {
        const read = (await d.member.get(`${d.ws}/runs/${created.body.id}/tasks/t1`)).body;
        return read.state !== 'ready' ? read : null;
      });
      expect(row).toMatchObject({
        state: 'failed',
        error: { code: 'approval_denied', detail: 'never\ufffd' },
      });
    });
  });
}
