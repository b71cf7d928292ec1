import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueDeliveries, type NewDelivery } from '../store/notifications.js';
import { type Answer, type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

interface Listed {
  id: string;
  run_id: string;
  created_at: number;
}

for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(
    `the notification outbox a page at a time (${backend.name})`,
    () => {
      let d: Deployment;
      // The kernel's clock, moved by hand: many deliveries are made in one millisecond.
      let now = Date.now();
      const notice = (runId: string): NewDelivery => ({
        workspace_id: d.workspaceId,
        run_id: runId,
        task_key: 't1',
        event_type: 'task.parked',
        channel: 'ops',
        channel_kind: 'webhook',
        payload: {},
      });

      beforeAll(async () => {
        d = await deploy(backend, { clock: () => now });
        const { store } = d.airlock.kernel.context;
        // 23 deliveries over four milliseconds: 9, 7, 5 and 2 in each (7 of them run_b's).
        for (const batch of [9, 7, 5, 2]) {
          await store.transaction((tx) =>
            enqueueDeliveries(
              tx,
              Array.from({ length: batch }, (_, n) => notice(n % 3 === 0 ? 'run_b' : 'run_a')),
            ),
          );
          now += 1;
        }
      });
      afterAll(async () => {
        await d.close();
      });

      /** Every delivery the list answers, page after page, and the pages' sizes. */
      const readAll = async (query: string) => {
        const seen: Listed[] = [];
        const sizes: number[] = [];
        let cursor: string | null = null;
        do {
          const page: Answer = await d.member.get(
            `${d.ws}/notifications?${query}${cursor === null ? '' : `&cursor=${cursor}`}`,
          );
          expect(page.status).toBe(200);
          seen.push(...page.body.deliveries);
          sizes.push(page.body.deliveries.length);
          cursor = page.body.next_cursor;
          expect(sizes.length).toBeLessThan(40);
        } while (cursor !== null);
        return { seen, sizes };
      };

      it('gives every delivery once, newest first, in pages of any size', async () => {
        const whole = await d.member.get(`${d.ws}/notifications?limit=1000`);
        expect(whole.body.deliveries).toHaveLength(23);
        expect(whole.body.next_cursor).toBeNull();
        const order = (whole.body.deliveries as Listed[]).map((row) => row.id);
        const times = (whole.body.deliveries as Listed[]).map((row) => row.created_at);
        expect(times).toEqual([...times].sort((a, b) => b - a));
        for (const size of [1, 2, 4, 5, 9, 22, 23]) {
          const { seen, sizes } = await readAll(`limit=${size}`);
          expect(seen.map((row) => row.id)).toEqual(order);
          // A page comes short only at the end, and the end hands no empty page.
          expect(sizes.slice(0, -1).every((n) => n === size)).toBe(true);
          expect(sizes[sizes.length - 1]).toBeGreaterThan(0);
        }
      });

      it('pages the rows of one run, and hands no cursor after a full last page', async () => {
        const { seen } = await readAll('run_id=run_b&limit=2');
        expect(seen).toHaveLength(9);
        expect(seen.every((row) => row.run_id === 'run_b')).toBe(true);
        const exact = await d.member.get(`${d.ws}/notifications?run_id=run_b&limit=9`);
        expect(exact.body.deliveries).toHaveLength(9);
        expect(exact.body.next_cursor).toBeNull();
      });

      it("refuses the runs list's cursor, and the runs list refuses its cursor", async () => {
        // Two runs, so that the runs list hands a cursor: it too is (created_at, id).
        for (let n = 0; n < 2; n += 1) {
          const run = await d.agent.post(`${d.ws}/runs`, {
            approval_mode: 'ask',
            provider: { kind: 'scripted', rounds: [{ final: 'done' }] },
          });
          expect(run.status).toBe(201);
        }
        const runsCursor = (await d.member.get(`${d.ws}/runs?limit=1`)).body.next_cursor;
        expect(runsCursor).toEqual(expect.any(String));
        const mixed = await d.member.get(`${d.ws}/notifications?cursor=${runsCursor}`);
        expect(mixed.status).toBe(400);
        expect(mixed.body.error.code).toBe('invalid_input');
        const outboxCursor = (await d.member.get(`${d.ws}/notifications?limit=1`)).body.next_cursor;
        const back = await d.member.get(`${d.ws}/runs?cursor=${outboxCursor}`);
        expect(back.status).toBe(400);
        expect(back.body.error.code).toBe('invalid_input');
      });

      it('refuses a cursor it did not make with a stable code', async () => {
        for (const cursor of ['bm90LWEtY3Vyc29y', 'a%20b', 'WzEsIngiLDJd']) {
          const refused = await d.member.get(`${d.ws}/notifications?cursor=${cursor}`);
          expect(refused.status).toBe(400);
          expect(refused.body.error.code).toBe('invalid_input');
          expect(refused.body.error.problems[0].pointer).toBe('/cursor');
        }
      });
    },
  );
}
