import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createCredential, listCredentials } from '../store/accounts.js';
import { client, type Deployment, sharedKernels, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

function parking(rounds: unknown[]) {
  return { approval_mode: 'ask', input: 'go', provider: { kind: 'scripted', rounds } };
}

async function credentialId(d: Deployment, kind: 'agent' | 'executor' | 'member') {
  const credentials = await listCredentials(d.airlock.store, d.workspaceId);
  return credentials.find((c) => c.kind === kind)!.credential_id;
}

/** An admin member credential of the workspace that belongs to no agent application. */
async function operator(d: Deployment) {
  const made = await createCredential(d.airlock.store, {
    workspaceId: d.workspaceId,
    kind: 'member',
    role: 'admin',
    label: 'operator',
  });
  return client(d.url, made.token);
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`revocation and removal (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });

    it("revoking the application's executor readdresses its held rows; the member door still answers", async () => {
      d = await kernels.deploy(backend);
      const created = await d.agent.post(
        `${d.ws}/runs`,
        parking([
          { tool_calls: [{ name: 'deploy' }, { name: 'ask', input: { prompt: 'Why?' } }] },
          { final: 'done' },
        ]),
      );
      const runId = created.body.id;
      const before = (await d.executor.get('/executor_api/v1/inbox')).body.items;
      expect(before.map((i: { kind: string }) => i.kind)).toEqual(['approval', 'ask']);
      const revoked = await d.member.post(
        `${d.ws}/credentials/${await credentialId(d, 'executor')}/revoke`,
      );
      expect(revoked.status).toBe(200);
      expect(revoked.body.readdressed).toEqual([
        { run_id: runId, task_key: 't1' },
        { run_id: runId, task_key: 't2' },
      ]);
      expect((await d.executor.get('/executor_api/v1/inbox')).status).toBe(401);
      const tasks = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks;
      expect(
        tasks.map((t: { state: string; addressee: string | null }) => [t.state, t.addressee]),
      ).toEqual([
        ['needs_approval', null],
        ['awaiting_input', null],
      ]);
      const events = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events;
      const readdressed = events.filter((e: { type: string }) => e.type === 'task.readdressed');
      expect(readdressed).toHaveLength(2);
      expect(readdressed[0].data).toMatchObject({
        addressee: null,
        previous_addressee: d.appId,
        reason: 'executor_revoked',
        detail: expect.stringContaining('was revoked'),
      });
      expect(readdressed[0].principal).toMatch(/^member:/);
      const approved = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`);
      expect(approved.body.state).toBe('runnable');
      const answered = await d.member.post(`${d.ws}/runs/${runId}/tasks/t2/resolution`, {
        content: 'because',
      });
      expect(answered.body.state).toBe('succeeded');
      const again = await d.member.post(
        `${d.ws}/credentials/${await credentialId(d, 'executor')}/revoke`,
      );
      expect(again.status).toBe(404);
    });

    it('revoking one of two executors leaves the rows addressed to the application', async () => {
      d = await kernels.deploy(backend);
      await createCredential(d.airlock.store, {
        workspaceId: d.workspaceId,
        kind: 'executor',
        agentApplicationId: d.appId,
      });
      const created = await d.agent.post(
        `${d.ws}/runs`,
        parking([{ tool_calls: [{ name: 'x' }] }]),
      );
      const revoked = await d.member.post(
        `${d.ws}/credentials/${await credentialId(d, 'executor')}/revoke`,
      );
      expect(revoked.body.readdressed).toEqual([]);
      const task = (await d.member.get(`${d.ws}/runs/${created.body.id}/tasks/t1`)).body;
      expect(task.addressee).toBe(d.appId);
    });

    it('removing an agent application fences its credentials and force-stops its runs', async () => {
      d = await kernels.deploy(backend);
      const op = await operator(d);
      const parked = await d.agent.post(
        `${d.ws}/runs`,
        parking([{ tool_calls: [{ name: 'deploy' }, { name: 'ask', input: { prompt: '?' } }] }]),
      );
      const mine = await op.post(`${d.ws}/runs`, parking([{ tool_calls: [{ name: 'y' }] }]));
      // Its member credential would be locked out: it goes first (see the next test).
      const member = (await d.member.get(`${d.ws}/credentials/self`)).body.credential_id;
      expect((await op.post(`${d.ws}/credentials/${member}/revoke`)).status).toBe(200);
      const removed = await op.post(`${d.ws}/agent_applications/${d.appId}/remove`);
      expect(removed.status).toBe(202);
      expect(removed.body.stopping_run_ids).toEqual([parked.body.id]);
      for (const fenced of [d.agent, d.executor]) {
        expect((await fenced.get(`${d.ws}/runs`)).status).toBe(401);
      }
      const run = await waitFor(async () => {
        const r = (await op.get(`${d.ws}/runs/${parked.body.id}`)).body;
        return r.state !== 'running' && r;
      });
      expect(run).toMatchObject({
        state: 'canceled',
        error: { code: 'agent_application_removed' },
      });
      const tasks = (await op.get(`${d.ws}/runs/${parked.body.id}/tasks`)).body.tasks;
      expect(tasks.map((t: { state: string }) => t.state)).toEqual(['canceled', 'canceled']);
      expect((await op.get(`${d.ws}/runs/${mine.body.id}`)).body.state).toBe('running');
      const unknown = await op.post(`${d.ws}/agent_applications/app_nope/remove`);
      expect(unknown.status).toBe(404);
    });

    it('refuses to remove an application that an active member credential belongs to, until it is revoked', async () => {
      d = await kernels.deploy(backend);
      const op = await operator(d);
      const remove = () => op.post(`${d.ws}/agent_applications/${d.appId}/remove`);
      const refused = await remove();
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('application_has_member_credentials');
      expect(refused.body.error.detail).toContain('1 active member credential(s)');
      expect(refused.body.error.detail).toContain('--workspace-level');
      // Nothing changed: the application is not removed and every credential of it still works.
      const apps = (await op.get(`${d.ws}/agent_applications`)).body.agent_applications;
      expect(apps.find((a: { id: string }) => a.id === d.appId).removed_at).toBeNull();
      for (const kept of [d.agent, d.member]) {
        expect((await kept.get(`${d.ws}/runs`)).status).toBe(200);
      }
      const member = (await d.member.get(`${d.ws}/credentials/self`)).body.credential_id;
      expect((await op.post(`${d.ws}/credentials/${member}/revoke`)).status).toBe(200);
      const removed = await remove();
      expect(removed.status).toBe(202);
      expect((await d.agent.get(`${d.ws}/runs`)).status).toBe(401);
      // A removed application takes no new member credential; a second removal answers the first.
      await expect(
        createCredential(d.airlock.store, {
          workspaceId: d.workspaceId,
          kind: 'member',
          agentApplicationId: d.appId,
        }),
      ).rejects.toMatchObject({ code: 'agent_application_not_found' });
      const again = await remove();
      expect(again.status).toBe(202);
      expect(again.body.removed_at).toBe(removed.body.removed_at);
    });
  });
}
