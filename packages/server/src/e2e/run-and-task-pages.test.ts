import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

interface Listed {
  id: string;
  created_at: number;
}

for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(
    `runs and task rows a page at a time (${backend.name})`,
    () => {
      let d: Deployment;
      // The kernel's clock, moved by hand: several runs are created in one millisecond.
      let now = Date.now();
      const runIds: string[] = [];
      let parkedRun = '';
      const CALLS = 12;

      const createRun = async () => {
        const run = await d.agent.post(`${d.ws}/runs`, {
          approval_mode: 'ask',
          provider: { kind: 'scripted', rounds: [{ final: 'done' }] },
        });
        expect(run.status).toBe(201);
        runIds.push(run.body.id);
      };

      beforeAll(async () => {
        d = await deploy(backend, { clock: () => now });
        // Seven runs: three created in one millisecond, two in the next, two one each.
        for (const batch of [3, 2, 1, 1]) {
          for (let i = 0; i < batch; i += 1) await createRun();
          now += 1;
        }
        // A run of twelve rows (t1 … t12: keys of one and two digits), all parked.
        const parked = await d.agent.post(`${d.ws}/runs`, {
          approval_mode: 'ask',
          provider: {
            kind: 'scripted',
            rounds: [
              {
                tool_calls: Array.from({ length: CALLS }, (_, n) => ({
                  name: 'deploy',
                  input: { n },
                })),
              },
              { final: 'f' },
            ],
          },
        });
        expect(parked.status).toBe(201);
        parkedRun = parked.body.id;
        await waitFor(
          async () =>
            (await d.member.get(`${d.ws}/runs/${parkedRun}/tasks`)).body.tasks?.length === CALLS,
        );
      });
      afterAll(async () => {
        await d.close();
      });

      /** Every run of the workspace, page after page, and the pages' sizes. */
      const readAllRuns = async (query: string) => {
        const seen: Listed[] = [];
        const sizes: number[] = [];
        let cursor: string | null = null;
        do {
          const page: Answer = await d.member.get(
            `${d.ws}/runs?${query}${cursor === null ? '' : `&cursor=${cursor}`}`,
          );
          expect(page.status).toBe(200);
          seen.push(...page.body.runs);
          sizes.push(page.body.runs.length);
          cursor = page.body.next_cursor;
          expect(sizes.length).toBeLessThan(20);
        } while (cursor !== null);
        return { seen, sizes };
      };

      it('pages every run newest first, ties by id, none skipped or repeated', async () => {
        const whole = await d.member.get(`${d.ws}/runs?limit=1000`);
        expect(whole.body.next_cursor).toBeNull();
        const expected = [...(whole.body.runs as Listed[])].sort(
          (a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0),
        );
        expect(whole.body.runs.map((run: Listed) => run.id)).toEqual(expected.map((r) => r.id));
        expect(new Set(expected.map((run) => run.id))).toEqual(new Set([...runIds, parkedRun]));
        const perMillisecond = new Map<number, number>();
        for (const run of expected) {
          perMillisecond.set(run.created_at, (perMillisecond.get(run.created_at) ?? 0) + 1);
        }
        expect([...perMillisecond.values()]).toEqual([1, 1, 1, 2, 3]);
        // Pages of two split the three runs of one millisecond (and the two of the next).
        const { seen, sizes } = await readAllRuns('limit=2');
        expect(sizes).toEqual([2, 2, 2, 2]);
        expect(seen.map((run) => run.id)).toEqual(expected.map((run) => run.id));
        const ofOne = await readAllRuns('limit=1');
        expect(ofOne.seen.map((run) => run.id)).toEqual(expected.map((run) => run.id));
      });

      it('answers next_cursor null on a full last page, and pages a state filter', async () => {
        const { sizes } = await readAllRuns('limit=4');
        expect(sizes).toEqual([4, 4]);
        const completed = await readAllRuns('limit=3&state=completed');
        expect(completed.seen.map((run) => run.id).sort()).toEqual([...runIds].sort());
        expect(completed.sizes).toEqual([3, 3, 1]);
      });

      it('lists as before for a caller that sends no cursor, with next_cursor besides', async () => {
        const plain = await d.agent.get(`${d.ws}/runs`);
        expect(plain.status).toBe(200);
        expect(plain.body.runs).toHaveLength(runIds.length + 1);
        expect(plain.body.next_cursor).toBeNull();
        const tasks = await d.agent.get(`${d.ws}/runs/${parkedRun}/tasks`);
        expect(tasks.body.tasks.map((task: { key: string }) => task.key)).toEqual(
          Array.from({ length: CALLS }, (_, n) => `t${n + 1}`),
        );
        expect(tasks.body.next_cursor).toBeNull();
      });

      it("pages a run's rows in planting order across t9 and t10", async () => {
        const keys: string[] = [];
        const sizes: number[] = [];
        let cursor: string | null = null;
        do {
          const page: Answer = await d.agent.get(
            `${d.ws}/runs/${parkedRun}/tasks?limit=5${cursor === null ? '' : `&cursor=${cursor}`}`,
          );
          expect(page.status).toBe(200);
          keys.push(...page.body.tasks.map((task: { key: string }) => task.key));
          sizes.push(page.body.tasks.length);
          cursor = page.body.next_cursor;
        } while (cursor !== null && sizes.length < 10);
        expect(sizes).toEqual([5, 5, 2]);
        expect(keys).toEqual(Array.from({ length: CALLS }, (_, n) => `t${n + 1}`));
        const full = await d.agent.get(`${d.ws}/runs/${parkedRun}/tasks?limit=${CALLS}`);
        expect(full.body.next_cursor).toBeNull();
      });

      it('refuses a cursor it did not make, or of another list, with invalid_input', async () => {
        const runsPage = await d.member.get(`${d.ws}/runs?limit=1`);
        const tasksPage = await d.member.get(`${d.ws}/runs/${parkedRun}/tasks?limit=1`);
        const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
        const refusedRuns = [
          'bm90LWEtY3Vyc29y',
          'a%20b',
          `${runsPage.body.next_cursor}A`,
          tasksPage.body.next_cursor,
          encode([1.5, 'run']),
          encode([1, 'a\u0000b']),
        ];
        for (const cursor of refusedRuns) {
          const refused = await d.member.get(`${d.ws}/runs?cursor=${cursor}`);
          expect(refused.status, cursor).toBe(400);
          expect(refused.body.error.code).toBe('invalid_input');
        }
        const refusedTasks = [
          runsPage.body.next_cursor,
          encode([runIds[0], 't1']),
          encode([parkedRun, 't01']),
          encode([parkedRun, 'x1']),
          ` ${tasksPage.body.next_cursor}`,
        ];
        for (const cursor of refusedTasks) {
          const refused = await d.member.get(
            `${d.ws}/runs/${parkedRun}/tasks?cursor=${encodeURIComponent(cursor)}`,
          );
          expect(refused.status, cursor).toBe(400);
          expect(refused.body.error.code).toBe('invalid_input');
        }
        // A cursor of a run another workspace cannot see is no way in: the run comes first.
        const other = await d.member.get(
          `${d.ws}/runs/run_missing/tasks?cursor=${encode(['run_missing', 't1'])}`,
        );
        expect(other.status).toBe(404);
      });
    },
  );
}
