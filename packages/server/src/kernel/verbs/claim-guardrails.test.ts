import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { replaceOverlay } from '../../store/overlays.js';
import { type Deployment, deploy, putOverlay, waitFor } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';

const all = await backends();

/** An admin's guardrail that refuses every deploy, whatever set a run selected. */
const NO_DEPLOYS = [
  {
    ruleSetId: 'supervised',
    rules: [
      { verdict: 'deny', guardrail: true, tools: ['deploy'], reason: 'deploys are frozen today' },
    ],
  },
];

/*
 * A call that is runnable already (granted by the stage, approved by a member, or appended
 * by one) meets the workspace's guardrails once more when an executor claims it: a guardrail
 * an admin added since refuses it there, and the model reads the guardrail's reason.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a claim after a guardrail was added (${backend.name})`,
    () => {
      let d: Deployment;
      const task = (runId: string, key = 't1') => `${d.ws}/runs/${runId}/tasks/${key}`;
      const claimOf = (runId: string, key = 't1') =>
        `/executor_api/v1/runs/${runId}/tasks/${key}/claim`;

      async function guardrails(groups: unknown[]): Promise<void> {
        expect((await putOverlay(d.member, `${d.ws}/overlays/user/me`, groups)).status).toBe(200);
      }

      /** A run whose one round calls each tool once, in `mode`; answers once t1 rests at `state`. */
      async function runCalling(
        mode: 'ask' | 'bypass',
        tools: string[],
        state: string,
        expectFed: string[] = [],
      ): Promise<string> {
        const created = await d.agent.post(`${d.ws}/runs`, {
          approval_mode: mode,
          input: 'ship it',
          provider: {
            kind: 'scripted',
            rounds: [
              { tool_calls: tools.map((name) => ({ name, input: { env: 'prod' } })) },
              { final: 'done', ...(expectFed.length > 0 ? { expect: expectFed } : {}) },
            ],
          },
        });
        expect(created.status).toBe(201);
        const runId = created.body.id as string;
        await waitFor(async () => (await d.member.get(task(runId))).body.state === state);
        return runId;
      }

      /** Checks the row failed approval_denied with the guardrail's reason and its run went on. */
      async function refusedByGuardrail(runId: string, key = 't1'): Promise<void> {
        const row = (await d.member.get(task(runId, key))).body;
        expect(row.state).toBe('failed');
        expect(row.error.code).toBe('approval_denied');
        expect(row.error.detail).toContain('deploys are frozen today');
        const events = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events as {
          type: string;
          task_key: string | null;
          data: { layer?: string; error?: { code: string } };
        }[];
        expect(events.some((e) => e.type === 'task.claimed' && e.task_key === key)).toBe(false);
        // Recorded as a refusal by policy (the audit trail's "denied by rule"), not a failure.
        const denied = events.filter((e) => e.type === 'task.denied' && e.task_key === key);
        expect(denied).toHaveLength(1);
        expect(denied[0]!.data).toMatchObject({
          layer: 'rule_set',
          error: { code: 'approval_denied' },
        });
      }

      // A deployment per case: a claim of the next row must not find another case's rows.
      beforeEach(async () => {
        d = await deploy(backend);
      });
      afterEach(async () => {
        await d.close();
      });

      it('refuses a granted call an executor claims by its key, with the guardrail reason', async () => {
        // The model's next round must be fed the refusal and the guardrail's reason.
        const fed = ['approval_denied', 'deploys are frozen today'];
        const runId = await runCalling('bypass', ['deploy'], 'runnable', fed);
        await guardrails(NO_DEPLOYS);
        const claimed = await d.executor.post(claimOf(runId), {});
        expect(claimed.status).toBe(409);
        expect(claimed.body.error.code).toBe('not_claimable');
        expect(claimed.body.error.detail).toContain('deploys are frozen today');
        await refusedByGuardrail(runId);
        // The model reads the refusal and the run goes on to its final answer.
        const ended = await waitFor(async () => {
          const run = (await d.member.get(`${d.ws}/runs/${runId}`)).body;
          return run.state === 'running' ? null : run;
        });
        expect(ended).toMatchObject({ state: 'completed', error: null, final_answer: 'done' });
      });

      it('refuses an approved call at the next claim, and hands out the next one instead', async () => {
        const runId = await runCalling('ask', ['deploy', 'status'], 'needs_approval');
        for (const key of ['t1', 't2']) {
          const approved = await d.member.post(`${task(runId, key)}/approve`, {});
          expect(approved.status).toBe(200);
          expect(approved.body.state).toBe('runnable');
        }
        await guardrails(NO_DEPLOYS);
        const next = await d.executor.post('/executor_api/v1/claim', {});
        expect(next.status).toBe(200);
        expect(next.body.claim.task.key).toBe('t2');
        await refusedByGuardrail(runId);
        const nothing = await d.executor.post('/executor_api/v1/claim', {});
        expect(nothing.body.claim).toBeNull();
      });

      it('refuses an author row a member appended before the guardrail', async () => {
        const runId = await runCalling('ask', ['status'], 'needs_approval');
        const appended = await d.member.post(`${d.ws}/runs/${runId}/tasks`, {
          tool_name: 'deploy',
          tool_input: { env: 'prod' },
        });
        expect(appended.status).toBe(201);
        const key = appended.body.key as string;
        expect((await d.member.get(task(runId, key))).body.state).toBe('runnable');
        await guardrails(NO_DEPLOYS);
        const next = await d.executor.post('/executor_api/v1/claim', {});
        expect(next.status).toBe(200);
        expect(next.body.claim).toBeNull();
        await refusedByGuardrail(runId, key);
      });

      it('a guardrail another kernel wrote straight into the store binds the next claim', async () => {
        // This kernel reads a guardrail first (an unrelated one), so it has the workspace's set in hand.
        const other = [
          {
            ruleSetId: 'supervised',
            rules: [{ verdict: 'deny', guardrail: true, tools: ['drop_db'] }],
          },
        ];
        await guardrails(other);
        const runId = await runCalling('bypass', ['deploy', 'deploy'], 'runnable');
        expect((await d.executor.post(claimOf(runId, 't2'), {})).status).toBe(200);
        // Another kernel process replaces the document: nothing in this one hears of it.
        const own = (await d.member.get(`${d.ws}/overlays/user/me`)).body;
        await d.airlock.store.transaction((tx) =>
          replaceOverlay(
            tx,
            { workspaceId: d.workspaceId, scope: 'user', ownerId: own.owner_id },
            { expectedDigest: own.digest, document: NO_DEPLOYS as never, by: own.owner_id },
          ),
        );
        const claimed = await d.executor.post(claimOf(runId), {});
        expect(claimed.status).toBe(409);
        await refusedByGuardrail(runId);
      });

      it("reads a guardrail on risks and targets through the run's frozen manifest", async () => {
        const created = await d.agent.post(`${d.ws}/runs`, {
          approval_mode: 'bypass',
          tool_manifest: [
            {
              name: 'write_file',
              input_schema: { type: 'object' },
              risk_traits: ['write'],
              targets: [{ pointer: '/path', kind: 'path' }],
            },
          ],
          project_root: '/repo',
          input: 'edit',
          provider: {
            kind: 'scripted',
            rounds: [
              {
                tool_calls: [
                  { name: 'write_file', input: { path: 'src/prod/a.ts' } },
                  { name: 'write_file', input: { path: 'src/dev/a.ts' } },
                ],
              },
              { final: 'done' },
            ],
          },
        });
        expect(created.status).toBe(201);
        const runId = created.body.id as string;
        await waitFor(
          async () => (await d.member.get(task(runId, 't2'))).body.state === 'runnable',
        );
        await guardrails([
          {
            ruleSetId: 'supervised',
            rules: [
              {
                verdict: 'deny',
                guardrail: true,
                risks: ['write'],
                targets: ['src/prod/**'],
                reason: 'deploys are frozen today',
              },
            ],
          },
        ]);
        const next = await d.executor.post('/executor_api/v1/claim', {});
        expect(next.body.claim.task.key).toBe('t2');
        await refusedByGuardrail(runId, 't1');
      });

      it('an asking guardrail added since does not hold back a granted call', async () => {
        const runId = await runCalling('bypass', ['deploy'], 'runnable');
        await guardrails([
          {
            ruleSetId: 'supervised',
            rules: [{ verdict: 'ask', guardrail: true, tools: ['deploy'] }],
          },
        ]);
        const claimed = await d.executor.post(claimOf(runId), {});
        expect(claimed.status).toBe(200);
        expect(claimed.body.task.state).toBe('claimed');
      });

      it('a lifted guardrail lets a granted call be claimed again', async () => {
        const runId = await runCalling('bypass', ['deploy'], 'runnable');
        await guardrails(NO_DEPLOYS);
        await guardrails([]);
        const claimed = await d.executor.post(claimOf(runId), {});
        expect(claimed.status).toBe(200);
        expect(claimed.body.task.key).toBe('t1');
      });
    },
  );
}
