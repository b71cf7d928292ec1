import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addMember,
  type Client,
  type Deployment,
  deploy,
  type MemberOf,
  waitFor,
} from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

/** A standalone run whose model makes one shell call, then answers with what it read. */
function destructiveRun(command = 'rm -rf build') {
  return {
    approval_mode: 'ask',
    input: 'clean up',
    provider: {
      kind: 'scripted',
      rounds: [{ tool_calls: [{ name: 'bash', input: { command } }] }, { final: 'done' }],
    },
  };
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`approval policies over HTTP (${backend.name})`, () => {
    let d: Deployment;
    let ana: MemberOf;
    let bo: MemberOf;
    let cy: MemberOf;

    const member = (label: string): Promise<MemberOf> => addMember(d, label);

    async function parkedRun(by: Client = d.agent, command?: string): Promise<string> {
      const created = await by.post(`${d.ws}/runs`, destructiveRun(command));
      expect(created.status).toBe(201);
      const runId = created.body.id as string;
      await waitFor(
        async () =>
          (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body.state === 'needs_approval',
      );
      return runId;
    }

    const task = (runId: string) => `${d.ws}/runs/${runId}/tasks/t1`;
    const events = async (runId: string) =>
      (await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events as {
        type: string;
        principal: string | null;
        principal_name?: string | null;
        data: Record<string, unknown>;
      }[];

    beforeAll(async () => {
      d = await deploy(backend);
      ana = await member('Ana Lima');
      bo = await member('Bo Chen');
      cy = await member('Cy Park');
      const put = await d.member.put(`${d.ws}/approval_policy`, {
        policy: {
          groups: { leads: [ana.id, bo.id] },
          rules: [{ actions: ['destructive'], approvers: ['group:leads'], required: 2 }],
          no_self_approval: true,
        },
      });
      expect(put.status).toBe(200);
      expect(put.body.version).toBe(1);
    });
    afterAll(async () => {
      await d.close();
    });

    it('runs a destructive call only after two distinct members approve, showing "1 of 2"', async () => {
      const runId = await parkedRun();
      const listed = (await d.member.get(`${d.ws}/decisions`)).body.decisions.find(
        (row: { run_id: string }) => row.run_id === runId,
      );
      expect(listed.approvals).toMatchObject({ required: 2, received: [], rule_index: 0 });

      const first = await ana.client.post(`${task(runId)}/approve`, {});
      expect(first.status).toBe(200);
      expect(first.body.state).toBe('needs_approval');
      expect(first.body.approvals.received).toEqual([
        expect.objectContaining({ principal: `member:${ana.id}`, name: 'Ana Lima' }),
      ]);
      // The same member again counts once.
      const again = await ana.client.post(`${task(runId)}/approve`, {});
      expect(again.status).toBe(200);
      expect(again.body.state).toBe('needs_approval');
      expect(again.body.approvals.received).toHaveLength(1);
      const inbox = (await d.executor.get('/executor_api/v1/inbox')).body.items;
      expect(
        inbox.some(
          (item: { run_id: string; kind: string }) => item.run_id === runId && item.kind === 'tool',
        ),
      ).toBe(false);

      const second = await bo.client.post(`${task(runId)}/approve`, {});
      expect(second.status).toBe(200);
      expect(second.body.state).toBe('runnable');
      expect(second.body.decided_by_name).toBe('Bo Chen');
      expect(second.body.approvals.received.map((r: { name: string }) => r.name)).toEqual([
        'Ana Lima',
        'Bo Chen',
      ]);

      const story = await events(runId);
      // Ana's second press recorded nothing: one approval_added, then Bo's approval settles it.
      const added = story.filter((e) => e.type === 'task.approval_added');
      expect(added).toHaveLength(1);
      expect(added[0]).toMatchObject({ principal: `member:${ana.id}`, principal_name: 'Ana Lima' });
      const approved = story.find((e) => e.type === 'task.approved')!;
      expect(approved.principal_name).toBe('Bo Chen');
      expect(approved.data.approved_by).toEqual([`member:${ana.id}`, `member:${bo.id}`]);
      const audit = await fetch(`${d.url}${d.ws}/runs/${runId}/audit`, {
        headers: { authorization: `Bearer ${d.tokens.member}` },
      });
      const decisions = (await audit.text())
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { decision: string; principal: string });
      expect(
        decisions.filter((r) => r.decision === 'approval_added').map((r) => r.principal),
      ).toEqual([`member:${ana.id}`]);
    });

    it('refuses a member the policy does not name, with a stable code, and changes nothing', async () => {
      const runId = await parkedRun();
      const before = (await d.member.get(task(runId))).body;
      for (const verb of ['approve', 'deny']) {
        const refused = await cy.client.post(`${task(runId)}/${verb}`, {});
        expect(refused.status).toBe(403);
        expect(refused.body.error.code).toBe('approver_not_allowed');
      }
      const after = (await d.member.get(task(runId))).body;
      expect(after.version).toBe(before.version);
      expect(after.approvals.received).toEqual([]);
    });

    it('refuses self-approval: the member who started the run may not approve it', async () => {
      const runId = await parkedRun(ana.client);
      const refused = await ana.client.post(`${task(runId)}/approve`, {});
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('self_approval_refused');
      expect((await d.member.get(task(runId))).body.approvals.received).toEqual([]);
    });

    it('ends the call on a deny after one approval', async () => {
      const runId = await parkedRun();
      expect((await ana.client.post(`${task(runId)}/approve`, {})).body.state).toBe(
        'needs_approval',
      );
      const denied = await bo.client.post(`${task(runId)}/deny`, { reason: 'not today' });
      expect(denied.status).toBe(200);
      expect(denied.body.state).toBe('failed');
      expect(denied.body.error.code).toBe('approval_denied');
      const late = await ana.client.post(`${task(runId)}/approve`, {});
      // The model read the deny and the run moved on: the row (or its run) is past deciding.
      expect(late.status).toBe(409);
      expect(['task_not_waiting', 'run_not_running']).toContain(late.body.error.code);
    });

    it('refuses remember on a call that needs two approvals', async () => {
      const runId = await parkedRun();
      const refused = await ana.client.post(`${task(runId)}/approve`, {
        remember: { scope: 'conversation' },
      });
      expect(refused.status).toBe(422);
      expect(refused.body.error.code).toBe('remember_unavailable');
    });

    it('refuses an invalid policy with every problem and a stable code, and keeps the old one', async () => {
      const bad = await d.member.put(`${d.ws}/approval_policy`, {
        policy: {
          groups: { leads: ['cred_nobody'] },
          rules: [{ actions: ['explode'], approvers: ['group:ghosts'], required: 0, colour: 1 }],
        },
      });
      expect(bad.status).toBe(422);
      expect(bad.body.error.code).toBe('invalid_configuration');
      const pointers = bad.body.error.problems.map((p: { pointer: string }) => p.pointer);
      expect(pointers).toEqual(
        expect.arrayContaining([
          '/policy/rules/0/actions',
          '/policy/rules/0/approvers/0',
          '/policy/rules/0/required',
          '/policy/rules/0/colour',
        ]),
      );
      const strangers = await d.member.put(`${d.ws}/approval_policy`, {
        policy: { groups: { leads: ['cred_nobody'] } },
      });
      expect(strangers.status).toBe(422);
      expect(strangers.body.error.problems[0]).toMatchObject({
        code: 'approval_approver_unknown',
        pointer: '/policy/groups/leads/0',
      });
      const stale = await d.member.put(`${d.ws}/approval_policy`, {
        policy: {},
        expected_version: 0,
      });
      expect(stale.status).toBe(409);
      expect(stale.body.error.code).toBe('stale_digest');
      expect((await d.member.get(`${d.ws}/approval_policy`)).body.version).toBe(1);
    });

    it('renames a member: the new name shows on the next decision view', async () => {
      const renamed = await d.member.post(`${d.ws}/credentials/${cy.id}/label`, { label: 'Cy P.' });
      expect(renamed.status).toBe(200);
      expect(renamed.body.label).toBe('Cy P.');
      const missing = await d.member.post(`${d.ws}/credentials/cred_missing/label`, { label: 'x' });
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('credential_not_found');
      const blank = await d.member.post(`${d.ws}/credentials/${cy.id}/label`, { label: '  ' });
      expect(blank.status).toBe(400);
    });

    it('approves a row at once when a policy change lowers the quorum to its approvals', async () => {
      const runId = await parkedRun();
      const first = await ana.client.post(`${task(runId)}/approve`, {});
      expect(first.body.state).toBe('needs_approval');
      const policy = (await d.member.get(`${d.ws}/approval_policy`)).body;
      const lowered = await d.member.put(`${d.ws}/approval_policy`, {
        policy: { ...policy.policy, rules: [{ ...policy.policy.rules[0], required: 1 }] },
        expected_version: policy.version,
      });
      expect(lowered.status).toBe(200);
      try {
        expect(lowered.body.approved_calls).toEqual([{ run_id: runId, task_key: 't1' }]);
        expect((await d.member.get(task(runId))).body.state).not.toBe('needs_approval');
        // Ana's second press finds it approved: nothing more is recorded.
        const again = await ana.client.post(`${task(runId)}/approve`, {});
        expect(again.status).toBe(409);
        const story = await events(runId);
        expect(story.filter((e) => e.type === 'task.approval_added')).toHaveLength(1);
        const approved = story.filter((e) => e.type === 'task.approved');
        expect(approved).toHaveLength(1);
        expect(approved[0]!.principal).toBe(`member:${ana.id}`);
      } finally {
        const restored = await d.member.put(`${d.ws}/approval_policy`, {
          policy: policy.policy,
          expected_version: lowered.body.version,
        });
        expect(restored.status).toBe(200);
      }
    });
  });
}
