import { afterAll, describe, expect, it } from 'vitest';
import { type Airlock, startAirlock } from '../../airlock.js';
import { writeApprovalPolicy } from '../../store/approvals.js';
import type { Store } from '../../store/store.js';
import {
  type Client,
  client,
  type Deployment,
  runOfCalls,
  waitFor,
} from '../../testing/harness.js';
import { freshPostgresDatabase, postgresSkipReason } from '../../testing/postgres.js';
import { type SettleWorkspace, settleWorkspace } from '../../testing/settle-workspace.js';
import { backends } from '../../testing/stores.js';
import { workspaceWithTokens } from '../../testing/workspace-tokens.js';

const all = await backends();
const pgSkip = await postgresSkipReason();

type Event = { type: string; task_key: string | null; data: Record<string, unknown> };

/**
 * Writes a workspace's approval policy as a put does, but stops before the put's settle: what a
 * process killed between the put's commit and its settle leaves behind.
 */
async function policyWrittenUnsettled(
  store: Store,
  options: { workspaceId: string; policy: Record<string, unknown> },
): Promise<number> {
  const written = await store.transaction((tx) =>
    writeApprovalPolicy(tx, { ...options, principal: 'member:admin' }),
  );
  return written.version;
}

/** Parks `count` wipe calls of one run and has `approver` approve each; the run's row paths. */
async function parkedAndApproved(
  d: Pick<Deployment, 'agent' | 'member' | 'ws'>,
  approver: Client,
  count: number,
): Promise<{ runId: string; rows: string[] }> {
  const runId = await runOfCalls(d as Deployment, {
    mode: 'ask',
    tool: 'wipe',
    count,
    state: 'needs_approval',
  });
  const { tasks } = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body;
  const rows = (tasks as { key: string }[]).map((t) => `${d.ws}/runs/${runId}/tasks/${t.key}`);
  for (const row of rows) {
    expect((await approver.post(`${row}/approve`, {})).body.approvals.received).toHaveLength(1);
  }
  return { runId, rows };
}

/** Waits until none of the run's rows waits, then answers its task.approved events. */
async function approvedOnceEach(by: Client, ws: string, runId: string): Promise<Event[]> {
  await waitFor(
    async () => {
      const { tasks } = (await by.get(`${ws}/runs/${runId}/tasks`)).body;
      return (tasks as { state: string }[]).every((t) => t.state !== 'needs_approval');
    },
    { timeoutMs: 60_000, what: 'the met calls to be approved after the start' },
  );
  const { events } = (await by.get(`${ws}/runs/${runId}/events?limit=1000`)).body;
  return (events as Event[]).filter((event) => event.type === 'task.approved');
}

/*
 * A kernel killed between a policy put's commit and its settle left each call the new policy
 * met waiting until its deadline, every allowed member having approved it already. A kernel's
 * start now looks at every workspace with a policy and approves such calls, each once.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `calls a policy met when its kernel stopped before settling (${backend.name})`,
    () => {
      let w: SettleWorkspace | undefined;
      afterAll(async () => {
        await w?.d.close();
      });

      it('are approved once after the next start', async () => {
        w = await settleWorkspace(backend);
        const { ana } = w;
        expect((await w.put(w.rule(2))).status).toBe(200);
        const { runId } = await w.parkApprovedByAna(3);
        const version = await w.writeUnsettled(w.rule(1));

        await w.d.restart();
        await w.noneWaits(runId, 'the met calls to be approved after the start');
        const approved = await w.approvedEvents(runId);
        expect(approved).toHaveLength(3);
        for (const event of approved) {
          expect(event.data).toMatchObject({
            state: 'runnable',
            decided_by: `member:${ana.id}`,
            approved_by: [`member:${ana.id}`],
            via: `approval policy version ${version}`,
          });
        }
      }, 120_000);
    },
  );
}

describe.skipIf(pgSkip !== null)('two kernels starting on one PostgreSQL after such a stop', () => {
  const started: Airlock[] = [];
  afterAll(async () => {
    for (const airlock of started) await airlock.close();
  });

  it('approve each met call once between them', async () => {
    const databaseUrl = await freshPostgresDatabase();
    const options = { databaseUrl, sweepIntervalMs: 50, rateLimit: null };
    const first = await startAirlock(options);
    started.push(first);
    const shared = await workspaceWithTokens(first.store, 'shared');
    const ws = `/api/v1/workspaces/${shared.workspaceId}`;
    const admin = client(first.url, shared.tokens.member);
    const agent = client(first.url, shared.tokens.agent);
    const made = await admin.post(`${ws}/credentials`, {
      kind: 'member',
      agent_application_id: null,
      label: 'Ana',
    });
    expect(made.status).toBe(201);
    const ana = { id: made.body.credential_id as string, token: made.body.token as string };
    const rule = (required: number) => ({
      rules: [{ tool: 'wipe', approvers: [ana.id], required }],
    });
    // Two approvers are asked of a rule naming one: nobody can approve, until the policy changes.
    const bo = await admin.post(`${ws}/credentials`, {
      kind: 'member',
      agent_application_id: null,
      label: 'Bo',
    });
    const both = (required: number) => ({
      rules: [{ tool: 'wipe', approvers: [ana.id, bo.body.credential_id], required }],
    });
    expect((await admin.put(`${ws}/approval_policy`, { policy: both(2) })).status).toBe(200);
    const runs: string[] = [];
    for (let round = 0; round < 2; round += 1) {
      const parked = await parkedAndApproved(
        { agent, member: admin, ws },
        client(first.url, ana.token),
        32,
      );
      runs.push(parked.runId);
    }
    await policyWrittenUnsettled(first.store, {
      workspaceId: shared.workspaceId,
      policy: rule(1),
    });
    await first.close();
    started.length = 0;

    // Both start at once, each looking at the workspace's waiting calls.
    started.push(...(await Promise.all([startAirlock(options), startAirlock(options)])));
    const reader = client(started[0]!.url, shared.tokens.member);
    for (const runId of runs) {
      const approved = await approvedOnceEach(reader, ws, runId);
      expect(approved).toHaveLength(32);
      expect(new Set(approved.map((event) => event.task_key)).size).toBe(32);
    }
  }, 180_000);
});
