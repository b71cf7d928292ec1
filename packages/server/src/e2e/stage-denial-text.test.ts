import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy, putOverlay, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

/*
 * A deny's reason is policy text, kept as JSON where it was declared; the refused row keeps it
 * as text, the detail the model reads. A NUL in it (which PostgreSQL refuses in text) is kept
 * as U+FFFD, so the call is refused alike on every store instead of failing the whole round.
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

    async function refusedRow(configuration: Record<string, unknown>) {
      const created = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'bypass',
        input: 'go',
        provider: {
          kind: 'scripted',
          rounds: [{ tool_calls: [{ name: 'deploy', input: {} }] }, { final: 'done' }],
        },
        ...configuration,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return waitFor(async () => {
        const read = (await d.member.get(`${d.ws}/runs/${created.body.id}/tasks/t1`)).body;
        return read.state !== 'ready' ? read : null;
      });
    }

    it("keeps a rule set's deny reason holding NUL with U+FFFD in its place", async () => {
      const row = await refusedRow({
        permission_rule_set: 'house',
        custom_rule_sets: [
          { id: 'house', rules: [{ verdict: 'deny', reason: 'no\u0000deploys' }] },
        ],
      });
      expect(row).toMatchObject({
        state: 'failed',
        error: { code: 'approval_denied', detail: 'no\ufffddeploys' },
      });
    });

    it("keeps a guardrail's reason holding NUL with U+FFFD in its place", async () => {
      const put = await putOverlay(d.member, `${d.ws}/overlays/user/me`, [
        {
          ruleSetId: 'supervised',
          rules: [{ verdict: 'deny', guardrail: true, tools: ['deploy'], reason: 'never\u0000' }],
        },
      ]);
      expect(put.status).toBe(200);
      const row = await refusedRow({});
      expect(row).toMatchObject({
        state: 'failed',
        error: { code: 'approval_denied', detail: 'never\ufffd' },
      });
    });
  });
}
