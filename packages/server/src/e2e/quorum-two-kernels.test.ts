import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Airlock, startAirlock } from '../airlock.js';
import { type Client, client, type Deployment, runOfCalls } from '../testing/harness.js';
import { freshPostgresDatabase, postgresSkipReason } from '../testing/postgres.js';
import { workspaceWithTokens } from '../testing/workspace-tokens.js';

const skip = await postgresSkipReason();
if (skip) console.warn(`[airlock tests] skipping quorum across two kernels: ${skip}`);

/*
 * A quorum decided through two kernel processes on one PostgreSQL database: the run's lock
 * makes the decisions on one row take turns, so of an approve and a deny sent at once exactly
 * one decides the row, and of approvals sent at once exactly the one completing the quorum
 * moves it, never a row approved and denied, approved twice, or run on fewer approvals.
 */
describe.skipIf(skip !== null)('a quorum decided through two kernels on one PostgreSQL', () => {
  let a: Airlock;
  let b: Airlock;
  let ws: string;
  let admin: Client;
  let agent: Client;
  /** A member and a client of it on each kernel. */
  interface Member {
    id: string;
    on: [Client, Client];
  }
  const members: Member[] = [];
  const three = () => members as [Member, Member, Member];
  // runOfCalls reads only the agent, a member and the workspace path of a deployment.
  const parkedDeploys = (count: number) =>
    runOfCalls({ agent, member: admin, ws } as Deployment, {
      mode: 'ask',
      tool: 'deploy',
      count,
      state: 'needs_approval',
    });
  beforeAll(async () => {
    const databaseUrl = await freshPostgresDatabase();
    const options = { databaseUrl, sweepIntervalMs: 50, rateLimit: null };
    a = await startAirlock(options);
    b = await startAirlock(options);
    const shared = await workspaceWithTokens(a.store, 'shared');
    ws = `/api/v1/workspaces/${shared.workspaceId}`;
    admin = client(a.url, shared.tokens.member);
    agent = client(a.url, shared.tokens.agent);
    for (const label of ['Ana', 'Bo', 'Cy']) {
      const made = await admin.post(`${ws}/credentials`, {
        kind: 'member',
        agent_application_id: null,
        label,
      });
      expect(made.status).toBe(201);
      const token = made.body.token as string;
      members.push({
        id: made.body.credential_id,
        on: [client(a.url, token), client(b.url, token)],
      });
    }
    const put = await admin.put(`${ws}/approval_policy`, {
      policy: { rules: [{ tool: 'deploy', approvers: members.map((m) => m.id), required: 2 }] },
    });
    expect(put.status).toBe(200);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('of an approve completing the quorum and a deny sent at once, exactly one decides each row', async () => {
    const [ana, bo, cy] = three();
    const runId = await parkedDeploys(8);
    const task = (key: string) => `${ws}/runs/${runId}/tasks/${key}`;
    const keys = (await admin.get(`${ws}/runs/${runId}/tasks`)).body.tasks.map(
      (t: { key: string }) => t.key,
    ) as string[];
    for (const key of keys) {
      expect((await ana.on[0].post(`${task(key)}/approve`, {})).body.state).toBe('needs_approval');
    }
    const answers = await Promise.all(
      keys.map(async (key, i) => {
        const [approve, deny] = await Promise.all([
          bo.on[i % 2]!.post(`${task(key)}/approve`, {}),
          cy.on[(i + 1) % 2]!.post(`${task(key)}/deny`, { reason: 'no' }),
        ]);
        return { key, approve, deny };
      }),
    );
    for (const { key, approve, deny } of answers) {
      const row = (await admin.get(task(key))).body;
      const events = (await admin.get(`${ws}/runs/${runId}/events?limit=1000`)).body.events.filter(
        (e: { task_key: string | null }) => e.task_key === key,
      ) as { type: string }[];
      const count = (type: string) => events.filter((e) => e.type === type).length;
      expect([approve.status, deny.status].sort()).toEqual([200, 409]);
      if (approve.status === 200) {
        expect(
          row.state === 'runnable' || row.state === 'claimed' || row.state === 'succeeded',
        ).toBe(true);
        expect([count('task.approved'), count('task.denied')]).toEqual([1, 0]);
      } else {
        expect(row.state).toBe('failed');
        expect([count('task.approved'), count('task.denied')]).toEqual([0, 1]);
      }
    }
  });

  it('of approvals sent at once through both kernels, the one completing the quorum moves the row once', async () => {
    const [ana, bo, cy] = three();
    const runId = await parkedDeploys(8);
    const task = (key: string) => `${ws}/runs/${runId}/tasks/${key}`;
    const keys = (await admin.get(`${ws}/runs/${runId}/tasks`)).body.tasks.map(
      (t: { key: string }) => t.key,
    ) as string[];
    await Promise.all(
      keys.map((key, i) =>
        Promise.all([
          ana.on[i % 2]!.post(`${task(key)}/approve`, {}),
          bo.on[(i + 1) % 2]!.post(`${task(key)}/approve`, {}),
          cy.on[i % 2]!.post(`${task(key)}/approve`, {}),
        ]),
      ),
    );
    const events = (await admin.get(`${ws}/runs/${runId}/events?limit=1000`)).body.events as {
      type: string;
      task_key: string | null;
      data: { approved_by?: string[] };
    }[];
    for (const key of keys) {
      const approved = events.filter((e) => e.task_key === key && e.type === 'task.approved');
      expect(approved).toHaveLength(1);
      expect(new Set(approved[0]?.data.approved_by).size).toBe(2);
      const added = events.filter((e) => e.task_key === key && e.type === 'task.approval_added');
      expect(added).toHaveLength(1);
    }
  });
});
