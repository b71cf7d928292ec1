import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';
import { listRuns } from './runs.js';

const available = (await backends()).filter((backend) => backend.skip === null);

describe.each(available)('the runs list read page after page on $name', (backend) => {
  let d: Deployment;
  let template: Record<string, unknown>;
  beforeAll(async () => {
    d = await deploy(backend);
    const run = await d.agent.post(`${d.ws}/runs`, {
      approval_mode: 'ask',
      provider: { kind: 'scripted', rounds: [{ final: 'f' }] },
    });
    expect(run.status).toBe(201);
    template = await d.airlock.store.db
      .selectFrom('runs')
      .selectAll()
      .where('id', '=', run.body.id)
      .executeTakeFirstOrThrow();
    await d.airlock.store.db.deleteFrom('runs').where('id', '=', run.body.id).execute();
  });
  afterAll(async () => {
    await d?.close();
  });

  it('holds every run once, in the order of one whole read, whatever the ties and page sizes', async () => {
    const store = d.airlock.store;
    await fc.assert(
      fc.asyncProperty(
        // Up to 25 runs over 3 milliseconds: most share their millisecond with others.
        fc.uniqueArray(fc.record({ id: fc.stringMatching(/^run_[0-9a-f]{1,6}$/), at: fc.nat(2) }), {
          minLength: 1,
          maxLength: 25,
          selector: (run) => run.id,
        }),
        fc.integer({ min: 1, max: 7 }),
        async (runs, pageSize) => {
          await store.db.deleteFrom('runs').where('workspace_id', '=', d.workspaceId).execute();
          await store.db
            .insertInto('runs')
            .values(
              runs.map((run) => ({ ...template, id: run.id, created_at: 1_000 + run.at })) as never,
            )
            .execute();
          const listing = { workspaceId: d.workspaceId, limit: 1000 };
          const whole = await listRuns(store, listing);
          const paged: string[] = [];
          let after: { createdAt: number; id: string } | undefined;
          for (let pages = 0; pages <= runs.length; pages += 1) {
            const page = await listRuns(store, { ...listing, limit: pageSize, after });
            paged.push(...page.map((run) => run.id));
            const last = page.at(-1);
            if (page.length < pageSize || !last) break;
            after = { createdAt: last.created_at, id: last.id };
          }
          expect(paged).toEqual(whole.map((run) => run.id));
          expect(new Set(paged)).toEqual(new Set(runs.map((run) => run.id)));
          const times = whole.map((run) => run.created_at);
          expect(times).toEqual([...times].sort((a, b) => b - a));
        },
      ),
      { numRuns: 40 },
    );
  });
});
