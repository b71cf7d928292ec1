import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { bashPostTool, bashPreTool, postHookEvent } from '../testing/hooked-events.js';
import { makeFixture } from '../testing/run-fixtures.js';
import { backends } from '../testing/stores.js';

const LONE = 'a\ud800b';
const AS_KEPT = 'a\ufffdb';

/*
 * Text with a lone surrogate (valid JSON, `"\ud800"`, but no Unicode text):
 * a name or id is refused before anything is written, on every store; text
 * a model or a tool wrote is kept with U+FFFD in its place, the same text on
 * SQLite and PostgreSQL (SQLite used to keep three U+FFFD, PostgreSQL one).
 */
for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(`text no store keeps as sent (${backend.name})`, () => {
    let d: Deployment;
    beforeAll(async () => {
      d = await deploy(backend);
    });
    afterAll(async () => {
      await d?.close();
    });

    it('refuses a gateway call whose tool name or call id holds a lone surrogate or NUL, planting nothing', async () => {
      const { runId } = await makeFixture(d, 'gateway');
      for (const call of [{ name: LONE }, { name: 'ls', id: LONE }, { name: 'l\u0000s' }]) {
        const answer = await d.agent.post(`${d.ws}/runs/${runId}/calls`, { calls: [call] });
        expect(answer.status, JSON.stringify(answer.body)).toBe(400);
        expect(answer.body.error.code).toBe('invalid_input');
        expect(answer.body.error.detail).toMatch(/lone surrogate/);
      }
      expect((await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks).toEqual([]);
    });

    it("keeps a gateway client's final answer with U+FFFD in place of a lone surrogate and NUL", async () => {
      const { runId } = await makeFixture(d, 'gateway');
      const answer = await d.agent.post(`${d.ws}/runs/${runId}/calls`, { final: `${LONE}\u0000` });
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      await d.airlock.kernel.idle();
      const run = (await d.member.get(`${d.ws}/runs/${runId}`)).body;
      expect(JSON.stringify(run)).toContain(JSON.stringify(`${AS_KEPT}\ufffd`).slice(1, -1));
      expect(JSON.stringify(run)).not.toContain('\ufffd\ufffd');
    });

    it("keeps an executor's error detail with U+FFFD in place of NUL, which PostgreSQL refuses in text", async () => {
      const { runId, claimId } = await makeFixture(d, 'claimed');
      const committed = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/commit`, {
        claim_id: claimId,
        outcome: 'failed',
        error: { code: 'tool_failed', detail: 'a\u0000b' },
      });
      expect(committed.status, JSON.stringify(committed.body)).toBe(200);
      const task = (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body;
      expect(task.error).toMatchObject({ code: 'tool_failed', detail: 'a\ufffdb' });
    });

    it('records a hooked call that failed printing NUL and a lone surrogate, with U+FFFD in their place', async () => {
      await d.agent.put('/agent_api/v1/profile/configuration', {
        approval_mode: 'rules',
        approval_rules: [{ tool: 'Bash', path: 'command', match: 'cat *', verdict: 'allow' }],
      });
      const granted = await postHookEvent(d, bashPreTool('cat blob.bin', 'tu-nul'));
      expect(granted.status, JSON.stringify(granted.body)).toBe(200);
      const runId = granted.body.run_id as string;
      const printed = `\u0000\u0001${LONE}`;
      const ran = await postHookEvent(d, bashPostTool('cat blob.bin', 'tu-nul', 'failed', printed));
      expect(ran.status, JSON.stringify(ran.body)).toBe(200);
      const [task] = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks;
      expect(task).toMatchObject({
        state: 'failed',
        error: { code: 'tool_failed', detail: `\ufffd\u0001${AS_KEPT}` },
      });
    });

    it("keeps an executor's error detail with U+FFFD in place of a lone surrogate", async () => {
      const { runId, claimId } = await makeFixture(d, 'claimed');
      const committed = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/commit`, {
        claim_id: claimId,
        outcome: 'failed',
        error: { code: 'tool_failed', detail: LONE },
      });
      expect(committed.status, JSON.stringify(committed.body)).toBe(200);
      const task = (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body;
      expect(task.error).toMatchObject({ code: 'tool_failed', detail: AS_KEPT });
    });
  });
}
