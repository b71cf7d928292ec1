import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { client, type Deployment, sharedKernels } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `agent applications and credentials (${backend.name})`,
    () => {
      let d: Deployment;
      const kernels = sharedKernels();
      afterAll(() => kernels.close());
      afterEach(async () => {
        await d?.close();
      });

      it('a member creates an application, mints its tokens, and lists both', async () => {
        d = await kernels.deploy(backend);
        const made = await d.member.post(`${d.ws}/agent_applications`, { name: 'second' });
        expect(made.status).toBe(201);
        expect(made.body).toMatchObject({ name: 'second', removed_at: null });
        const appId = made.body.id as string;
        const executor = await d.member.post(`${d.ws}/credentials`, {
          kind: 'executor',
          agent_application_id: appId,
          label: 'second executor',
        });
        expect(executor.status).toBe(201);
        expect(executor.body).toMatchObject({ kind: 'executor', agent_application_id: appId });
        const inbox = await client(d.url, executor.body.token).get('/executor_api/v1/inbox');
        expect(inbox.status).toBe(200);

        const apps = await d.member.get(`${d.ws}/agent_applications`);
        expect(apps.body.agent_applications.map((a: { id: string }) => a.id)).toContain(appId);
        const credentials = await d.member.get(`${d.ws}/credentials`);
        const listed = credentials.body.credentials.find(
          (c: { credential_id: string }) => c.credential_id === executor.body.credential_id,
        );
        expect(listed).toMatchObject({
          kind: 'executor',
          label: 'second executor',
          revoked_at: null,
        });
        expect(JSON.stringify(credentials.body)).not.toContain(executor.body.token);
      });

      it('a workspace member credential outlives the removal of every application', async () => {
        d = await kernels.deploy(backend);
        const unbound = await d.member.post(`${d.ws}/credentials`, {
          kind: 'member',
          agent_application_id: null,
          role: 'admin',
          label: 'operator',
        });
        expect(unbound.status).toBe(201);
        expect(unbound.body.agent_application_id).toBeNull();
        expect(unbound.body.role).toBe('admin');
        const operator = client(d.url, unbound.body.token);
        // The application's own member credential would be locked out: it is revoked first.
        const bound = (await d.member.get(`${d.ws}/credentials/self`)).body.credential_id;
        expect((await operator.post(`${d.ws}/credentials/${bound}/revoke`)).status).toBe(200);
        const apps = (await operator.get(`${d.ws}/agent_applications`)).body.agent_applications;
        for (const app of apps as { id: string }[]) {
          const removed = await operator.post(`${d.ws}/agent_applications/${app.id}/remove`);
          expect(removed.status).toBe(202);
        }
        const runs = await operator.get(`${d.ws}/runs`);
        expect(runs.status).toBe(200);
        const listed = await operator.get(`${d.ws}/agent_applications`);
        expect(
          listed.body.agent_applications.every((a: { removed_at: number | null }) => a.removed_at),
        ).toBe(true);
        // And it can start over: a new application with its own agent token.
        const fresh = await operator.post(`${d.ws}/agent_applications`, { name: 'fresh' });
        const agent = await operator.post(`${d.ws}/credentials`, {
          kind: 'agent',
          agent_application_id: fresh.body.id,
        });
        expect(agent.status).toBe(201);
      });

      it('refuses bad input and unknown ids with stable codes, changing nothing', async () => {
        d = await kernels.deploy(backend);
        const before = (await d.member.get(`${d.ws}/agent_applications`)).body;
        const empty = await d.member.post(`${d.ws}/agent_applications`, { name: '' });
        expect(empty.status).toBe(400);
        expect(empty.body.error.code).toBe('invalid_input');
        const unknown = await d.member.post(`${d.ws}/credentials`, {
          kind: 'executor',
          agent_application_id: 'app_nope',
        });
        expect(unknown.status).toBe(404);
        expect(unknown.body.error.code).toBe('agent_application_not_found');
        const unbound = await d.member.post(`${d.ws}/credentials`, {
          kind: 'executor',
          agent_application_id: null,
        });
        expect(unbound.status).toBe(400);
        const byAgent = await d.agent.get(`${d.ws}/agent_applications`);
        expect(byAgent.status).toBe(403);
        expect((await d.member.get(`${d.ws}/agent_applications`)).body).toEqual(before);
      });
    },
  );
}
