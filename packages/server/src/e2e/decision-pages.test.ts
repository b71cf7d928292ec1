import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(
    `the waiting list a page at a time (${backend.name})`,
    () => {
      let d: Deployment;
      const keys: string[] = [];
      const list = (query: string) => d.member.get(`${d.ws}/decisions?${query}`);

      beforeAll(async () => {
        d = await deploy(backend);
        // Five runs, each parking one call, one after another: five distinct park times.
        for (let i = 0; i < 5; i += 1) {
          const run = await d.agent.post(`${d.ws}/runs`, {
            approval_mode: 'ask',
            provider: {
              kind: 'scripted',
              rounds: [{ tool_calls: [{ name: 'deploy', input: { n: i } }] }, { final: 'f' }],
            },
          });
          keys.push(`${run.body.id}/t1`);
          await waitFor(async () => (await list('limit=10')).body.total === i + 1);
          await new Promise((resolve) => setTimeout(resolve, 3));
        }
      });
      afterAll(async () => {
        await d.close();
      });

      const keysOf = (body: { decisions: { run_id: string; key: string }[] }) =>
        body.decisions.map((task) => `${task.run_id}/${task.key}`);

      it('counts every waiting row and pages oldest first by cursor', async () => {
        const first = await list('limit=2');
        expect(first.status).toBe(200);
        expect(first.body.total).toBe(5);
        expect(keysOf(first.body)).toEqual(keys.slice(0, 2));
        const second = await list(`limit=2&cursor=${first.body.next_cursor}`);
        expect(keysOf(second.body)).toEqual(keys.slice(2, 4));
        const last = await list(`limit=2&cursor=${second.body.next_cursor}`);
        expect(keysOf(last.body)).toEqual(keys.slice(4));
        expect(last.body.next_cursor).toBeNull();
      });

      it('pages newest first', async () => {
        const first = await list('limit=3&order=newest');
        expect(keysOf(first.body)).toEqual([...keys].reverse().slice(0, 3));
        const rest = await list(`limit=3&order=newest&cursor=${first.body.next_cursor}`);
        expect(keysOf(rest.body)).toEqual([...keys].reverse().slice(3));
        expect(rest.body.total).toBe(5);
      });

      it('hands no cursor when a full page holds the last rows', async () => {
        const whole = await list('limit=5');
        expect(keysOf(whole.body)).toEqual(keys);
        expect(whole.body.next_cursor).toBeNull();
        const first = await list('limit=3&order=newest');
        const rest = await list(`limit=2&order=newest&cursor=${first.body.next_cursor}`);
        expect(keysOf(rest.body)).toEqual([...keys].reverse().slice(3));
        expect(rest.body.next_cursor).toBeNull();
      });

      it('refuses a cursor it did not make, or an unknown order, with a stable code', async () => {
        for (const query of ['cursor=bm90LWEtY3Vyc29y', 'cursor=a%20b', 'order=sideways']) {
          const refused = await list(query);
          expect(refused.status).toBe(400);
          expect(refused.body.error.code).toBe('invalid_input');
        }
        // The problem as data, as the runs and notifications lists give it.
        const cursor = await list('cursor=bm90LWEtY3Vyc29y');
        expect(cursor.body.error.problems).toEqual([
          expect.objectContaining({ code: 'invalid_cursor', pointer: '/cursor' }),
        ]);
      });

      it('lowers the count as rows are decided', async () => {
        const [runId] = keys[0]!.split('/');
        expect((await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/deny`, {})).status).toBe(200);
        expect((await list('limit=1')).body.total).toBe(4);
      });
    },
  );
}
