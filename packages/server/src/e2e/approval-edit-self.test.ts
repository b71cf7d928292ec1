import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { addMember, type Deployment, sharedKernels, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

/*
 * Under no_self_approval an edited call is the editor's own: the input they wrote is what
 * runs, so their approval of it does not count, as an appender's does not. The edit is kept
 * and the call waits for another member; the editor may still deny it.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`an edit under no_self_approval (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });
    const task = (runId: string) => `${d.ws}/runs/${runId}/tasks/t1`;

    async function parked(): Promise<string> {
      const created = await d.agent.post(`${d.ws}/runs`, {
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
      await waitFor(async () => (await d.member.get(task(runId))).body.state === 'needs_approval');
      return runId;
    }

    it('keeps the edit, counts nobody, and lets only another member approve the edited call', async () => {
      d = await kernels.deploy(backend);
      const [ana, bo] = [await addMember(d, 'Ana'), await addMember(d, 'Bo')];
      const put = await d.member.put(`${d.ws}/approval_policy`, {
        policy: { no_self_approval: true },
      });
      expect(put.status).toBe(200);
      const runId = await parked();
      const edited = await ana.client.post(`${task(runId)}/approve`, {
        tool_input: { command: 'rm -rf /srv/data' },
      });
      expect(edited.status).toBe(200);
      expect(edited.body.state).toBe('needs_approval');
      expect(edited.body.tool_input).toEqual({ command: 'rm -rf /srv/data' });
      expect(edited.body.approvals.received).toEqual([]);
      expect(edited.body.approvals.required).toBe(1);
      const events = (await d.member.get(`${d.ws}/runs/${runId}/events?limit=100`)).body.events as {
        type: string;
      }[];
      expect(events.map((e) => e.type)).toContain('task.edited');
      expect(events.map((e) => e.type)).not.toContain('task.approval_added');

      // Ana may write her edit again (a typo): still hers, still waiting for another member.
      const again = await ana.client.post(`${task(runId)}/approve`, {
        tool_input: { command: 'rm -rf /srv/data/tmp' },
      });
      expect(again.status).toBe(200);
      expect(again.body.state).toBe('needs_approval');
      expect(again.body.approvals.received).toEqual([]);

      const own = await ana.client.post(`${task(runId)}/approve`, {
        version: again.body.version,
      });
      expect(own.status).toBe(403);
      expect(own.body.error.code).toBe('self_approval_refused');
      expect(own.body.error.detail).toContain('edited');
      expect((await d.member.get(task(runId))).body.state).toBe('needs_approval');

      const other = await bo.client.post(`${task(runId)}/approve`, {
        version: again.body.version,
      });
      expect(other.status).toBe(200);
      expect(other.body.state).toBe('runnable');
      expect(other.body.tool_input).toEqual({ command: 'rm -rf /srv/data/tmp' });
    });

    it('leaves the editor their deny, and counts them on a version another member edited', async () => {
      d = await kernels.deploy(backend);
      const [ana, bo] = [await addMember(d, 'Ana'), await addMember(d, 'Bo')];
      await d.member.put(`${d.ws}/approval_policy`, {
        policy: { rules: [{ required: 2 }], no_self_approval: true },
      });
      const runId = await parked();
      const byAna = await ana.client.post(`${task(runId)}/approve`, {
        tool_input: { command: 'rm -rf build/a' },
      });
      expect(byAna.body.approvals.received).toEqual([]);
      // Bo's edit is Bo's call: Ana, who did not write it, counts; Bo does not.
      const byBo = await bo.client.post(`${task(runId)}/approve`, {
        tool_input: { command: 'rm -rf build/b' },
      });
      expect(byBo.status).toBe(200);
      expect(byBo.body.approvals.received).toEqual([]);
      const anaApproves = await ana.client.post(`${task(runId)}/approve`, {});
      expect(anaApproves.status).toBe(200);
      expect(anaApproves.body.approvals.received.map((r: { name: string }) => r.name)).toEqual([
        'Ana',
      ]);
      const denied = await bo.client.post(`${task(runId)}/deny`, { reason: 'not this either' });
      expect(denied.status).toBe(200);
      expect(denied.body.state).toBe('failed');
    });

    it('without no_self_approval the editor’s approval is the first, as before', async () => {
      d = await kernels.deploy(backend);
      const ana = await addMember(d, 'Ana');
      const runId = await parked();
      const edited = await ana.client.post(`${task(runId)}/approve`, {
        tool_input: { command: 'rm -rf build/tmp' },
      });
      expect(edited.status).toBe(200);
      expect(edited.body.state).toBe('runnable');
    });
  });
}
