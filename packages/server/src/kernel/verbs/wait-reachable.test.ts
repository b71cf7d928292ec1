import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addMember,
  claimAndCommit,
  type Deployment,
  deploy,
  type MemberOf,
  waitFor,
} from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';

const all = await backends();

type Event = { type: string; data: Record<string, unknown> };

/*
 * Every event that leaves a call waiting for approvals says whether the live members can give
 * them, as its row's view says (approvals.reachable): a park (park-approvals.test.ts), and here a
 * retry that parks the call again and an edit that still parks it. A reader drawing the row from
 * events keeps "too few approvers" after them without reading the row.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `reachability after a retry or an edit (${backend.name})`,
    () => {
      let d: Deployment;
      let ana: MemberOf;
      let bo: MemberOf;
      let cy: MemberOf;
      beforeAll(async () => {
        d = await deploy(backend);
        [ana, bo, cy] = [
          await addMember(d, 'Ana'),
          await addMember(d, 'Bo'),
          await addMember(d, 'Cy'),
        ];
      });
      afterAll(async () => {
        await d?.close();
      });

      const task = (runId: string) => `${d.ws}/runs/${runId}/tasks/t1`;
      const events = async (runId: string) =>
        (await d.member.get(`${d.ws}/runs/${runId}/events?limit=1000`)).body.events as Event[];

      async function parked(command: string): Promise<string> {
        const created = await d.agent.post(`${d.ws}/runs`, {
          approval_mode: 'ask',
          on_failure: 'hold',
          input: 'clean up',
          provider: {
            kind: 'scripted',
            rounds: [{ tool_calls: [{ name: 'bash', input: { command } }] }, { final: 'done' }],
          },
        });
        expect(created.status).toBe(201);
        const runId = created.body.id as string;
        await waitFor(
          async () => (await d.member.get(task(runId))).body.state === 'needs_approval',
          {
            timeoutMs: 60_000,
            what: 'the call to park',
          },
        );
        return runId;
      }

      async function setPolicy(policy: unknown): Promise<void> {
        const put = await d.member.put(`${d.ws}/approval_policy`, { policy });
        expect(put.status).toBe(200);
      }

      it('a failed call retried that parks again says whether its quorum can be met', async () => {
        await setPolicy({
          rules: [{ actions: ['destructive'], approvers: [ana.id, bo.id], required: 2 }],
        });
        const runId = await parked('rm -rf out');
        await ana.client.post(`${task(runId)}/approve`, {});
        expect((await bo.client.post(`${task(runId)}/approve`, {})).body.state).toBe('runnable');
        const failed = await claimAndCommit(d, runId, 't1', {
          outcome: 'failed',
          error: { code: 'exit_1', detail: 'rm failed' },
        });
        expect(failed.body.state).toBe('failed');
        const retried = await d.member.post(`${task(runId)}/retry`);
        expect(retried.body.state).toBe('needs_approval');
        const again = (await events(runId)).find((event) => event.type === 'task.retried');
        expect(again?.data).toMatchObject({ approvals_required: 2, approvals_reachable: true });
      }, 120_000);

      it('an edit that still parks says whether its quorum can be met, as the view says', async () => {
        await setPolicy({
          rules: [{ actions: ['destructive'], approvers: [ana.id, bo.id, cy.id], required: 2 }],
        });
        const open = await parked('rm -rf build');
        const edited = await ana.client.post(`${task(open)}/approve`, {
          tool_input: { command: 'rm -rf build/cache' },
        });
        expect(edited.body.approvals).toMatchObject({ required: 2, reachable: true });
        const story = (await events(open)).find((event) => event.type === 'task.edited');
        expect(story?.data).toMatchObject({ outcome: 'parked', approvals_reachable: true });

        // Under no_self_approval the editor may not approve their own input: with one other
        // live approver left (Cy revoked), two approvals cannot come.
        await setPolicy({
          no_self_approval: true,
          rules: [{ actions: ['destructive'], approvers: [ana.id, bo.id, cy.id], required: 2 }],
        });
        expect((await d.member.post(`${d.ws}/credentials/${cy.id}/revoke`, {})).status).toBe(200);
        const own = await parked('rm -rf dist');
        const mine = await ana.client.post(`${task(own)}/approve`, {
          tool_input: { command: 'rm -rf dist/cache' },
        });
        expect(mine.status).toBe(200);
        expect(mine.body.approvals).toMatchObject({ required: 2, reachable: false });
        expect((await d.member.get(task(own))).body.approvals.reachable).toBe(false);
        const said = (await events(own)).find((event) => event.type === 'task.edited');
        expect(said?.data).toMatchObject({
          outcome: 'parked',
          approvals_required: 2,
          approvals_reachable: false,
        });
      }, 120_000);
    },
  );

  describe.skipIf(backend.skip !== null)(
    `reachability after an expired park retried (${backend.name})`,
    () => {
      let d: Deployment;
      beforeAll(async () => {
        // Parks run out at once: each call is retried from timed_out.
        d = await deploy(backend, { parkTtlMs: 250 });
      });
      afterAll(async () => {
        await d?.close();
      });

      const task = (runId: string) => `${d.ws}/runs/${runId}/tasks/t1`;

      async function expired(command: string): Promise<string> {
        const created = await d.agent.post(`${d.ws}/runs`, {
          approval_mode: 'ask',
          on_failure: 'hold',
          input: 'clean up',
          provider: {
            kind: 'scripted',
            rounds: [{ tool_calls: [{ name: 'bash', input: { command } }] }, { final: 'done' }],
          },
        });
        expect(created.status).toBe(201);
        const runId = created.body.id as string;
        await waitFor(async () => (await d.member.get(task(runId))).body.state === 'timed_out', {
          timeoutMs: 60_000,
          what: 'the park to run out',
        });
        return runId;
      }

      async function retried(runId: string): Promise<Event | undefined> {
        const answer = await d.member.post(`${task(runId)}/retry`);
        expect(answer.status).toBe(200);
        expect(answer.body.state).toBe('needs_approval');
        const events = (await d.member.get(`${d.ws}/runs/${runId}/events?limit=1000`)).body
          .events as Event[];
        return events.find((event) => event.type === 'task.retried');
      }

      it('waits again with approvals_reachable false once a revoke left too few approvers', async () => {
        const [ana, bo] = [await addMember(d, 'Ana'), await addMember(d, 'Bo')];
        const put = await d.member.put(`${d.ws}/approval_policy`, {
          policy: {
            rules: [{ actions: ['destructive'], approvers: [ana.id, bo.id], required: 2 }],
          },
        });
        expect(put.status).toBe(200);
        const runId = await expired('rm -rf build');
        expect((await d.member.post(`${d.ws}/credentials/${bo.id}/revoke`, {})).status).toBe(200);
        expect((await retried(runId))?.data).toMatchObject({
          state: 'needs_approval',
          approvals_required: 2,
          approvals_reachable: false,
        });
      }, 120_000);

      it('carries no reachability for a call no policy rule covers', async () => {
        const again = await retried(await expired('ls build'));
        expect(again?.data).toMatchObject({ approvals_required: 1 });
        expect(again?.data).not.toHaveProperty('approvals_reachable');
      }, 120_000);
    },
  );
}
