import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, type Deployment, deploy, waitFor } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';

const all = await backends();

type Event = { type: string; data: Record<string, unknown> };

/*
 * no_self_approval binds a call no policy rule covers too (one approval by any member but its
 * requester): where the requester is the only live member, nobody can approve it. Its park says
 * so, as its row's view does, so a reader drawing the row from events warns of it.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a park no rule covers under no_self_approval (${backend.name})`,
    () => {
      let d: Deployment;
      beforeAll(async () => {
        d = await deploy(backend);
        const put = await d.member.put(`${d.ws}/approval_policy`, {
          policy: { no_self_approval: true },
        });
        expect(put.status).toBe(200);
      });
      afterAll(async () => {
        await d?.close();
      });

      /** A run the deployment's admin (the only member so far) starts; its one call parks. */
      async function parkOf(): Promise<{ runId: string; park: Event }> {
        const created = await d.member.post(`${d.ws}/runs`, {
          approval_mode: 'ask',
          input: 'clean up',
          provider: {
            kind: 'scripted',
            rounds: [
              { tool_calls: [{ name: 'bash', input: { command: 'ls build' } }] },
              { final: 'done' },
            ],
          },
        });
        expect(created.status).toBe(201);
        const runId = created.body.id as string;
        const park = await waitFor(
          async () =>
            ((await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events as Event[]).find(
              (event) => event.type === 'task.parked',
            ),
          { timeoutMs: 60_000, what: 'the call to park' },
        );
        return { runId, park };
      }

      it('is unreachable while its starter is the only live member, as its view says', async () => {
        const { runId, park } = await parkOf();
        const view = (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body;
        expect(view.approvals).toMatchObject({ rule_index: null, required: 1, reachable: false });
        expect(park.data).toMatchObject({ approvals_required: 1, approvals_reachable: false });
      }, 120_000);

      it('is reachable once another member may approve it', async () => {
        await addMember(d, 'Ana');
        const { park } = await parkOf();
        expect(park.data).toMatchObject({ approvals_required: 1, approvals_reachable: true });
      }, 120_000);
    },
  );
}
