import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';
import { recordWrites } from '../../testing/write-recorder.js';

const postgres = (await backends()).find((backend) => backend.name === 'postgres')!;

/*
 * A call the declared rules park reads the approval policy (its event's approvals_required):
 * on PostgreSQL that read goes out in the write of the stage's overlay read, not after it.
 */
describe.skipIf(postgres.skip !== null)('a park on PostgreSQL', () => {
  let d: Deployment;
  let port: number;
  beforeAll(async () => {
    d = await deploy(postgres, { sweepIntervalMs: 3_600_000 });
    port = Number(new URL(process.env.AIRLOCK_TEST_DATABASE_URL!).port || 5432);
  });
  afterAll(async () => {
    await d?.close();
  });

  async function park(): Promise<void> {
    const created = await d.agent.post(`${d.ws}/runs`, {
      approval_mode: 'ask',
      input: 'ship it',
      provider: { kind: 'scripted', rounds: [{ tool_calls: [{ name: 'deploy', input: {} }] }] },
    });
    expect(created.status).toBe(201);
    const task = `${d.ws}/runs/${created.body.id as string}/tasks/t1`;
    await waitFor(async () => (await d.member.get(task)).body.state === 'needs_approval');
    await d.airlock.kernel.idle();
  }

  it('reads the approval policy in the write of the overlay read', async () => {
    await park();
    const recorded = recordWrites(port);
    try {
      await park();
    } finally {
      recorded.stop();
    }
    // The park's transaction: from its run's INSERT to its COMMIT.
    const first = recorded.writes.findIndex((w) =>
      w.some((sql) => sql.startsWith('insert into "runs"')),
    );
    const last = recorded.writes.findIndex((w) => w.includes('commit'));
    const parking = recorded.writes.slice(first, last + 1);
    const stageRead = parking.find((w) =>
      w.some((sql) => sql.includes('from "overlay_documents"')),
    );
    expect(stageRead).toEqual(
      expect.arrayContaining([expect.stringContaining('from "approval_policies"')]),
    );
    expect(parking.flat().filter((sql) => sql.includes('from "approval_policies"'))).toHaveLength(
      1,
    );
  });
});
