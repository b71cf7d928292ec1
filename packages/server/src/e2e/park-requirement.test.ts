import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

/** A standalone run whose model makes one shell call (parked by mode ask), then answers. */
function shellRun(command: string, extra: Record<string, unknown> = {}) {
  return {
    approval_mode: 'ask',
    input: 'clean up',
    provider: {
      kind: 'scripted',
      rounds: [{ tool_calls: [{ name: 'bash', input: { command } }] }, { final: 'done' }],
    },
    ...extra,
  };
}

/** Two approvals for anything destructive, by any member. */
const TWO_FOR_DESTRUCTIVE = { rules: [{ actions: ['destructive'], required: 2 }] };

type Event = { type: string; data: Record<string, unknown> };

/**
 * Every event that leaves a row waiting for approval says how many approvals
 * the workspace's approval policy asked of it then, so a reader (the inbox)
 * shows "0 of 2 approvals" without reading the row.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `the requirement on a park's events (${backend.name})`,
    () => {
      let d: Deployment;
      const task = (runId: string) => `${d.ws}/runs/${runId}/tasks/t1`;
      const events = async (on: Deployment, runId: string) =>
        (await on.member.get(`${on.ws}/runs/${runId}/events`)).body.events as Event[];

      async function parked(on: Deployment, command: string, extra = {}): Promise<string> {
        const created = await on.agent.post(`${on.ws}/runs`, shellRun(command, extra));
        expect(created.status).toBe(201);
        const runId = created.body.id as string;
        await waitFor(
          async () =>
            (await on.member.get(`${on.ws}/runs/${runId}/tasks/t1`)).body.state ===
            'needs_approval',
        );
        return runId;
      }

      async function putPolicy(on: Deployment, policy: unknown): Promise<void> {
        const put = await on.member.put(`${on.ws}/approval_policy`, { policy });
        expect(put.status).toBe(200);
      }

      beforeAll(async () => {
        d = await deploy(backend);
        await putPolicy(d, TWO_FOR_DESTRUCTIVE);
      });
      afterAll(async () => {
        await d.close();
      });

      it('a park carries the approvals the policy asks: 2 for a destructive call, 1 for another', async () => {
        const destructive = await parked(d, 'rm -rf build');
        const parkOf = async (runId: string) =>
          (await events(d, runId)).find((event) => event.type === 'task.parked');
        expect((await parkOf(destructive))?.data.approvals_required).toBe(2);
        expect((await d.member.get(task(destructive))).body.approvals.required).toBe(2);
        const listing = await parked(d, 'ls -la');
        expect((await parkOf(listing))?.data.approvals_required).toBe(1);
      });

      it('gives each call of one round its own requirement (the policy is read once for the round)', async () => {
        const created = await d.agent.post(`${d.ws}/runs`, {
          ...shellRun('rm -rf out'),
          provider: {
            kind: 'scripted',
            rounds: [
              {
                tool_calls: [
                  { name: 'bash', input: { command: 'rm -rf out' } },
                  { name: 'bash', input: { command: 'ls out' } },
                  { name: 'bash', input: { command: 'rm -rf tmp' } },
                ],
              },
              { final: 'done' },
            ],
          },
        });
        const runId = created.body.id as string;
        const parks = await waitFor(async () => {
          const found = (await events(d, runId)).filter((event) => event.type === 'task.parked');
          return found.length === 3 ? found : null;
        });
        expect(parks.map((event) => event.data.approvals_required)).toEqual([2, 1, 2]);
      });

      it('keeps the requirement of the moment it parked; the row view follows a later policy', async () => {
        const runId = await parked(d, 'rm -rf dist');
        await putPolicy(d, { rules: [{ actions: ['destructive'], required: 3 }] });
        try {
          const park = (await events(d, runId)).find((event) => event.type === 'task.parked');
          expect(park?.data.approvals_required).toBe(2);
          expect((await d.member.get(task(runId))).body.approvals.required).toBe(3);
        } finally {
          await putPolicy(d, TWO_FOR_DESTRUCTIVE);
        }
      });

      it('an edit that still parks carries what the edited call needs, then the editor’s approval', async () => {
        const runId = await parked(d, 'rm -rf build');
        const approved = await d.member.post(`${task(runId)}/approve`, {
          tool_input: { command: 'rm -rf build/cache' },
        });
        expect(approved.status).toBe(200);
        expect(approved.body.state).toBe('needs_approval');
        const story = await events(d, runId);
        const edited = story.find((event) => event.type === 'task.edited');
        expect(edited?.data).toMatchObject({ outcome: 'parked', approvals_required: 2 });
        const added = story.find((event) => event.type === 'task.approval_added');
        expect(added?.data).toMatchObject({ received: 1, required: 2 });
        expect(story.indexOf(edited!)).toBeLessThan(story.indexOf(added!));
      });

      it('an expired park retried waits again with the requirement on its task.retried event', async () => {
        const short = await deploy(backend, { parkTtlMs: 250 });
        try {
          await putPolicy(short, TWO_FOR_DESTRUCTIVE);
          const created = await short.agent.post(
            `${short.ws}/runs`,
            shellRun('rm -rf build', { on_failure: 'hold' }),
          );
          const runId = created.body.id as string;
          const tasks = `${short.ws}/runs/${runId}/tasks/t1`;
          await waitFor(async () => (await short.member.get(tasks)).body.state === 'timed_out');
          const retried = await short.member.post(`${tasks}/retry`);
          expect(retried.status).toBe(200);
          expect(retried.body.state).toBe('needs_approval');
          const story = await events(short, runId);
          expect(story.find((event) => event.type === 'task.parked')?.data.approvals_required).toBe(
            2,
          );
          const again = story.find((event) => event.type === 'task.retried');
          expect(again?.data).toMatchObject({ state: 'needs_approval', approvals_required: 2 });
        } finally {
          await short.close();
        }
      });

      it('a retry that runs a failed call again carries no requirement: it does not wait', async () => {
        const runId = await parked(d, 'make', { on_failure: 'hold' });
        expect((await d.member.post(`${task(runId)}/approve`, {})).body.state).toBe('runnable');
        const claim = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/claim`);
        expect(claim.status).toBe(200);
        const committed = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/commit`, {
          claim_id: claim.body.claim_id,
          outcome: 'failed',
          error: { code: 'exit_2', detail: 'make failed' },
        });
        expect(committed.body.state).toBe('failed');
        const retried = await d.member.post(`${task(runId)}/retry`);
        expect(retried.body.state).toBe('runnable');
        const again = (await events(d, runId)).find((event) => event.type === 'task.retried');
        expect(again?.data.state).toBe('runnable');
        expect(again?.data).not.toHaveProperty('approvals_required');
      });
    },
  );

  describe.skipIf(backend.skip !== null)(
    `a policy's actions over a declared tool's risk traits (${backend.name})`,
    () => {
      let d: Deployment;
      afterAll(async () => {
        await d?.close();
      });

      it('a tool the manifest declares destructive needs what the policy asks of destructive actions', async () => {
        d = await deploy(backend);
        const put = await d.member.put(`${d.ws}/approval_policy`, { policy: TWO_FOR_DESTRUCTIVE });
        expect(put.status).toBe(200);
        const profile = await d.agent.put('/agent_api/v1/profile/configuration', {
          approval_mode: 'ask',
          tool_manifest: [
            { name: 'drop_db', input_schema: { type: 'object' }, risk_traits: ['destructive'] },
            { name: 'lookup', input_schema: { type: 'object' }, risk_traits: ['read'] },
          ],
        });
        expect(profile.status).toBe(200);
        const conversation = (await d.agent.post('/agent_api/v1/conversations')).body.id as string;
        const started = await d.agent.post(`/agent_api/v1/conversations/${conversation}/inputs`, {
          input: 'go',
          provider: {
            kind: 'scripted',
            rounds: [
              {
                tool_calls: [
                  { name: 'drop_db', input: {} },
                  { name: 'lookup', input: {} },
                ],
              },
              { final: 'done' },
            ],
          },
        });
        expect(started.status).toBe(201);
        const runId = started.body.id as string;
        const row = (key: string) => d.member.get(`${d.ws}/runs/${runId}/tasks/${key}`);
        await waitFor(
          async () =>
            (await row('t1')).body.state === 'needs_approval' &&
            (await row('t2')).body.state === 'needs_approval',
        );
        // No shell command says "destructive" here: the tool's declared trait does.
        expect((await row('t1')).body.approvals.required).toBe(2);
        expect((await row('t2')).body.approvals.required).toBe(1);
      });
    },
  );
}
