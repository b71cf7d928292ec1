import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, type Client, type Deployment, deploy, waitFor } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';

const all = await backends();

type Event = { type: string; data: Record<string, unknown> };

/*
 * A call that parks under a rule whose quorum the live members can no longer give (an approver
 * was revoked earlier) says so on its task.parked event, as its row's view does: a reader drawing
 * the row from events (the inbox) shows "too few approvers" without reading the row.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`a park's approvals_reachable (${backend.name})`, () => {
    let d: Deployment;
    beforeAll(async () => {
      d = await deploy(backend);
    });
    afterAll(async () => {
      await d?.close();
    });

    const task = (runId: string, key = 't1') => `${d.ws}/runs/${runId}/tasks/${key}`;

    /** A run whose one round makes these shell calls; resolves once all of them parked. */
    async function parks(
      commands: string[],
      by: Client = d.agent,
    ): Promise<{ runId: string; parks: Event[] }> {
      const created = await by.post(`${d.ws}/runs`, {
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
      const runId = created.body.id as string;
      const parked = await waitFor(
        async () => {
          const events = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body
            .events as Event[];
          const found = events.filter((event) => event.type === 'task.parked');
          return found.length === commands.length ? found : null;
        },
        { timeoutMs: 60_000, what: 'the calls to park' },
      );
      return { runId, parks: parked };
    }

    async function setPolicy(policy: unknown): Promise<void> {
      const put = await d.member.put(`${d.ws}/approval_policy`, { policy });
      expect(put.status).toBe(200);
    }

    it('is false for a call under a rule an earlier revoke left unreachable, as its view says', async () => {
      const [ana, bo] = [await addMember(d, 'Ana'), await addMember(d, 'Bo')];
      await setPolicy({
        rules: [{ actions: ['destructive'], approvers: [ana.id, bo.id], required: 2 }],
      });
      const revoked = await d.member.post(`${d.ws}/credentials/${bo.id}/revoke`, {});
      expect(revoked.status).toBe(200);
      const { runId, parks: parked } = await parks(['rm -rf build', 'ls build']);
      // One round parks both: the unreachable destructive call, and one no rule covers.
      expect(parked.map((event) => event.data.approvals_required)).toEqual([2, 1]);
      expect(parked[0]?.data.approvals_reachable).toBe(false);
      expect(parked[1]?.data).not.toHaveProperty('approvals_reachable');
      const view = (await d.member.get(task(runId))).body;
      expect(view.approvals).toMatchObject({ required: 2, reachable: false });
    }, 120_000);

    it('is false for a run a member started under no_self_approval that bars them', async () => {
      const [eve, fay] = [await addMember(d, 'Eve'), await addMember(d, 'Fay')];
      await setPolicy({
        no_self_approval: true,
        rules: [{ actions: ['destructive'], approvers: [eve.id, fay.id], required: 2 }],
      });
      const own = await parks(['rm -rf cache'], eve.client);
      expect(own.parks[0]?.data).toMatchObject({
        approvals_required: 2,
        approvals_reachable: false,
      });
      expect((await d.member.get(task(own.runId))).body.approvals.reachable).toBe(false);
      const other = await parks(['rm -rf cache']);
      expect(other.parks[0]?.data.approvals_reachable).toBe(true);
    }, 120_000);

    it('is true for a call its live approvers can approve', async () => {
      const [cy, dee] = [await addMember(d, 'Cy'), await addMember(d, 'Dee')];
      await setPolicy({
        rules: [{ actions: ['destructive'], approvers: [cy.id, dee.id], required: 2 }],
      });
      const { runId, parks: parked } = await parks(['rm -rf dist']);
      expect(parked[0]?.data).toMatchObject({ approvals_required: 2, approvals_reachable: true });
      expect((await d.member.get(task(runId))).body.approvals.reachable).toBe(true);
    }, 120_000);
  });
}
