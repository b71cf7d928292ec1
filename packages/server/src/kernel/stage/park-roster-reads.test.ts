import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, type Deployment, deploy, waitFor } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';
import { recordWrites } from '../../testing/write-recorder.js';

const postgres = (await backends()).find((backend) => backend.name === 'postgres')!;

/** The statement that reads a workspace's roster (principal-roster.ts). */
const ROSTER_READ = /^select "id", "kind", "label", "revoked_at" from "credentials"/;

/*
 * Each park a policy rule covers says whether its quorum can be met, which reads the workspace's
 * roster: a round that parks several such calls reads it once, not once per call (each read was
 * one more PostgreSQL round trip).
 */
describe.skipIf(postgres.skip !== null)('the parks of one round on PostgreSQL', () => {
  let d: Deployment;
  let port: number;
  beforeAll(async () => {
    // No sweep during a count: only the run's round talks to the database.
    d = await deploy(postgres, { sweepIntervalMs: 3_600_000 });
    port = Number(new URL(process.env.AIRLOCK_TEST_DATABASE_URL!).port || 5432);
    const [ana, bo] = [await addMember(d, 'Ana'), await addMember(d, 'Bo')];
    const put = await d.member.put(`${d.ws}/approval_policy`, {
      policy: { rules: [{ actions: ['destructive'], approvers: [ana.id, bo.id], required: 2 }] },
    });
    expect(put.status).toBe(200);
  });
  afterAll(async () => {
    await d?.close();
  });

  it('read the roster once for three covered calls', async () => {
    const commands = ['rm -rf build', 'rm -rf dist', 'rm -rf cache'];
    const recorded = recordWrites(port);
    let runId: string;
    try {
      const created = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'ask',
        input: 'clean up',
        provider: {
          kind: 'scripted',
          rounds: [
            { tool_calls: commands.map((command) => ({ name: 'bash', input: { command } })) },
            { final: 'done' },
          ],
        },
      });
      expect(created.status).toBe(201);
      runId = created.body.id as string;
      // Polled in the store, not over the API: a view of a row reads the roster too.
      await waitFor(
        async () => {
          const parked = await d.airlock.store.db
            .selectFrom('tasks')
            .select('key')
            .where('run_id', '=', runId)
            .where('state', '=', 'needs_approval')
            .execute();
          return parked.length === commands.length;
        },
        { timeoutMs: 60_000, what: 'the three calls to park' },
      );
      await d.airlock.kernel.idle();
    } finally {
      recorded.stop();
    }
    const rosterReads = recorded.writes.flat().filter((sql) => ROSTER_READ.test(sql));
    expect(rosterReads).toHaveLength(1);
    // And each park still says its quorum can be met.
    const events = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events as {
      type: string;
      data: Record<string, unknown>;
    }[];
    const parks = events.filter((event) => event.type === 'task.parked');
    expect(parks.map((event) => event.data.approvals_reachable)).toEqual([true, true, true]);
  }, 120_000);
});
