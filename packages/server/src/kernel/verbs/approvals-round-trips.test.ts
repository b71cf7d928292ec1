import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Answer,
  type Deployment,
  deploy,
  putOverlay,
  waitFor,
} from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';
import { recordWrites } from '../../testing/write-recorder.js';

const postgres = (await backends()).find((backend) => backend.name === 'postgres')!;

/** The write whose statements include one matching `pattern`. */
function writeOf(writes: string[][], pattern: RegExp): string[] {
  const found = writes.filter((write) => write.some((statement) => pattern.test(statement)));
  expect(found, `one write carries ${pattern}`).toHaveLength(1);
  return found[0]!;
}

/*
 * An approve reads its row with its run's lock, then its workspace's policy, its roster, the
 * approvals given and the overlays the stage weighs the call against again, all in one write:
 * the stage's second crossing costs no round trip of its own on PostgreSQL.
 */
describe.skipIf(postgres.skip !== null)('an approve on PostgreSQL', () => {
  let d: Deployment;
  let port: number;
  beforeAll(async () => {
    // No sweep during a count: only the approve talks to the database.
    d = await deploy(postgres, { sweepIntervalMs: 3_600_000 });
    port = Number(new URL(process.env.AIRLOCK_TEST_DATABASE_URL!).port || 5432);
    // A member's user document: the stage reads the workspace's guardrails' digests.
    const own = `${d.ws}/overlays/user/me`;
    const groups = [{ ruleSetId: 'supervised', rules: [{ verdict: 'ask', tools: ['sudo'] }] }];
    expect((await putOverlay(d.member, own, groups)).status).toBe(200);
  });
  afterAll(async () => {
    await d?.close();
  });

  async function parkedDeploy(): Promise<string> {
    const created = await d.agent.post(`${d.ws}/runs`, {
      approval_mode: 'ask',
      input: 'ship it',
      provider: {
        kind: 'scripted',
        rounds: [{ tool_calls: [{ name: 'deploy', input: { env: 'prod' } }] }, { final: 'done' }],
      },
    });
    expect(created.status).toBe(201);
    const runId = created.body.id as string;
    await waitFor(
      async () =>
        (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body.state === 'needs_approval',
    );
    await d.airlock.kernel.idle();
    return runId;
  }

  it('sends the row with its lock, and every read of the workspace in one write', async () => {
    // The first approve warms what every later one reuses (the credential, the guardrails).
    const warm = await parkedDeploy();
    expect((await d.member.post(`${d.ws}/runs/${warm}/tasks/t1/approve`, {})).status).toBe(200);
    const runId = await parkedDeploy();
    const recorded = recordWrites(port);
    let approved: Answer;
    try {
      approved = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`, {});
      await d.airlock.kernel.idle();
    } finally {
      recorded.stop();
    }
    expect(approved.status).toBe(200);
    expect(approved.body.state).toBe('runnable');
    const { writes } = recorded;
    expect(writeOf(writes, /from "runs" .* for update/)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^select \* from "tasks"/)]),
    );
    // The roster's read (authentication, when it reads the token again, reads credentials too).
    const reads = writeOf(writes, /^select "id", "kind", "label", "revoked_at" from "credentials"/);
    for (const table of ['approval_policies', 'overlay_documents', 'task_approvals']) {
      expect(reads).toEqual(expect.arrayContaining([expect.stringContaining(`from "${table}"`)]));
    }
    // The stage read the run's overlays and the guardrails' digests once, in that write.
    expect(writes.flat().filter((sql) => sql.includes('from "overlay_documents"'))).toHaveLength(1);
  });
});
