import { afterEach, describe, expect, it } from 'vitest';
import {
  addMember,
  type Client,
  type Deployment,
  deploy,
  type MemberOf,
  waitFor,
} from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

/*
 * Revoking a member the approval policy counts on can leave a rule asking more approvals than
 * its live approvers can give: every call it covers would wait for its deadline. The revoke
 * still happens (a leaked token must stop at once), its answer names each such rule, and a
 * parked call under one shows that its quorum cannot be met until the policy changes.
 */
describe('revoking an approver a quorum counts on', () => {
  let d: Deployment;
  afterEach(async () => {
    await d?.close();
  });

  const task = (runId: string) => `${d.ws}/runs/${runId}/tasks/t1`;
  async function parkedRun(by: Client = d.agent): Promise<string> {
    const created = await by.post(`${d.ws}/runs`, {
      approval_mode: 'ask',
      input: 'clean up',
      provider: {
        kind: 'scripted',
        rounds: [
          { tool_calls: [{ name: 'bash', input: { command: 'rm -rf build' } }] },
          { final: 'done' },
        ],
      },
    });
    expect(created.status).toBe(201);
    const runId = created.body.id as string;
    await waitFor(async () => (await d.member.get(task(runId))).body.state === 'needs_approval', {
      timeoutMs: 60_000,
      what: 'the call to park',
    });
    return runId;
  }
  const revoke = (who: MemberOf) => d.member.post(`${d.ws}/credentials/${who.id}/revoke`, {});
  const setPolicy = async (policy: unknown) => {
    const put = await d.member.put(`${d.ws}/approval_policy`, { policy });
    expect(put.status).toBe(200);
  };

  it('names the rules it leaves unreachable, and the parked call shows it', async () => {
    d = await deploy(sqlite!);
    const [ana, bo, cy] = [
      await addMember(d, 'Ana'),
      await addMember(d, 'Bo'),
      await addMember(d, 'Cy'),
    ];
    await setPolicy({
      groups: { pair: [ana.id, bo.id] },
      rules: [
        { tool: 'deploy', approvers: [cy.id] },
        { actions: ['destructive'], approvers: ['group:pair'], required: 2 },
      ],
    });
    const runId = await parkedRun();
    expect((await d.member.get(task(runId))).body.approvals).toMatchObject({
      required: 2,
      reachable: true,
    });

    const revoked = await revoke(bo);
    expect(revoked.status).toBe(200);
    expect(revoked.body.unreachable_approval_rules).toEqual([
      { rule_index: 1, required: 2, approvers_left: 1 },
    ]);
    const waiting = (await d.member.get(task(runId))).body;
    expect(waiting.state).toBe('needs_approval');
    expect(waiting.approvals).toMatchObject({ required: 2, reachable: false });
    const listed = (await d.member.get(`${d.ws}/decisions`)).body.decisions as {
      run_id: string;
      approvals?: { reachable: boolean };
    }[];
    expect(listed.find((item) => item.run_id === runId)?.approvals?.reachable).toBe(false);
    // Ana's approval is recorded, and its event says no quorum can follow.
    expect((await ana.client.post(`${task(runId)}/approve`, {})).status).toBe(200);
    const events = (await d.member.get(`${d.ws}/runs/${runId}/events?limit=1000`)).body.events as {
      type: string;
      data: { reachable?: boolean };
    }[];
    const added = events.filter((event) => event.type === 'task.approval_added');
    expect(added.map((event) => event.data.reachable)).toEqual([false]);

    // The admin mends the policy; the call can be approved again, and is.
    const dee = await addMember(d, 'Dee');
    await setPolicy({
      rules: [{ actions: ['destructive'], approvers: [ana.id, dee.id], required: 2 }],
    });
    expect((await d.member.get(task(runId))).body.approvals.reachable).toBe(true);
    const done = await dee.client.post(`${task(runId)}/approve`, {});
    expect(done.body.state).toBe('runnable');
  }, 120_000);

  it('names no rule when the revoked member leaves every quorum reachable', async () => {
    d = await deploy(sqlite!);
    const [ana, bo, cy] = [
      await addMember(d, 'Ana'),
      await addMember(d, 'Bo'),
      await addMember(d, 'Cy'),
    ];
    await setPolicy({
      rules: [{ actions: ['destructive'], approvers: [ana.id, bo.id, cy.id], required: 2 }],
    });
    const revoked = await revoke(cy);
    expect(revoked.status).toBe(200);
    expect(revoked.body.unreachable_approval_rules).toEqual([]);
    const bare = await revoke(await addMember(d, 'Unnamed'));
    expect(bare.body.unreachable_approval_rules).toEqual([]);
  }, 120_000);

  it('counts every live member for a rule that names nobody', async () => {
    d = await deploy(sqlite!);
    // The deployment's own admin is a member too: with Ana, Bo and Cy, four members.
    const [ana, bo] = [await addMember(d, 'Ana'), await addMember(d, 'Bo')];
    await addMember(d, 'Cy');
    await setPolicy({ rules: [{ actions: ['destructive'], required: 3 }] });
    expect((await revoke(ana)).body.unreachable_approval_rules).toEqual([]);
    const runId = await parkedRun();
    expect((await d.member.get(task(runId))).body.approvals.reachable).toBe(true);
    expect((await revoke(bo)).body.unreachable_approval_rules).toEqual([
      { rule_index: 0, required: 3, approvers_left: 2 },
    ]);
    expect((await d.member.get(task(runId))).body.approvals.reachable).toBe(false);
  }, 120_000);

  it('shows a quorum no_self_approval leaves short of members as unreachable', async () => {
    d = await deploy(sqlite!);
    const [ana, bo] = [await addMember(d, 'Ana'), await addMember(d, 'Bo')];
    await setPolicy({
      no_self_approval: true,
      rules: [{ actions: ['destructive'], approvers: [ana.id, bo.id], required: 2 }],
    });
    const own = await parkedRun(ana.client);
    expect((await d.member.get(task(own))).body.approvals).toMatchObject({
      required: 2,
      reachable: false,
    });
    const other = await parkedRun();
    expect((await d.member.get(task(other))).body.approvals.reachable).toBe(true);
  }, 120_000);
});
