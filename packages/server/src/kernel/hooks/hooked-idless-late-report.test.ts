import { describe, expect, it, type TestContext } from 'vitest';
import { type Deployment, deploy, waitFor } from '../../testing/harness.js';
import { HOOK_EVENTS_PATH } from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * An agent whose hooks carry no call id (Gemini CLI) reports a call by its
 * tool and input. A call that ran longer than its claim's lease fails
 * `outcome_unknown`; its report, coming after all, records what ran on the
 * row, as a late report under a call id does.
 */

const all = await backends();
type Row = { key: string; state: string; result: unknown; error: { code: string } | null };

for (const backend of all) {
  // Each case has a kernel of its own (one waits out a lease): side by side.
  describe.skipIf(backend.skip !== null)(
    `an idless late report (${backend.name})`,
    {
      concurrent: true,
    },
    () => {
      /** A kernel of the backend whose agent's calls are granted (bypass); closed with the test. */
      async function bypassing(
        onTestFinished: TestContext['onTestFinished'],
        options: Parameters<typeof deploy>[1] = {},
      ): Promise<Deployment> {
        const d = await deploy(backend, options);
        onTestFinished(() => d.close());
        await d.agent.put('/agent_api/v1/profile/configuration', { approval_mode: 'bypass' });
        return d;
      }
      const event = (d: Deployment, body: Record<string, unknown>) =>
        d.agent.post(HOOK_EVENTS_PATH, { agent: 'gemini', session_id: 'g-1', ...body });
      const call = { tool_name: 'run_shell_command', tool_input: { command: 'make build' } };

      it('records what ran on the row whose claim lapsed', async ({ onTestFinished }) => {
        const d = await bypassing(onTestFinished, { maxLeaseMs: 300 });
        const granted = await event(d, { event: 'pre_tool', ...call });
        expect(granted.body).toMatchObject({ verdict: 'allow', task_state: 'claimed' });
        const runId = granted.body.run_id as string;
        const rowOf = async () =>
          ((await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks as Row[])[0];
        await waitFor(async () => (await rowOf())?.state !== 'claimed', {
          what: 'the lease to lapse',
        });
        expect((await rowOf())?.error?.code).toBe('outcome_unknown');
        const late = await event(d, {
          event: 'post_tool',
          ...call,
          outcome: 'succeeded',
          output: 'built',
        });
        expect(late.body).toMatchObject({
          verdict: 'ack',
          task_key: 't1',
          task_state: 'succeeded',
        });
        const row = await rowOf();
        expect(row).toMatchObject({ state: 'succeeded', error: null });
        expect(JSON.stringify(row?.result)).toContain('built');
      });

      const rowsOf = async (d: Deployment, runId: string) =>
        (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks as Row[];
      const unstagedOf = async (d: Deployment, runId: string) =>
        ((await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events as { type: string }[])
          .filter((e) => e.type === 'run.unstaged_call')
          .map((e) => e.type);
      const lint = { tool_name: 'run_shell_command', tool_input: { command: 'make lint' } };

      it('goes to its own turn when it comes after the next turn began', async ({
        onTestFinished,
      }) => {
        const d = await bypassing(onTestFinished);
        const granted = await event(d, { event: 'pre_tool', ...call });
        const first = granted.body.run_id as string;
        expect((await d.member.post(`${d.ws}/runs/${first}/stop`, {})).status).toBe(200);
        const next = await event(d, { event: 'pre_tool', ...lint });
        expect(next.body).toMatchObject({ verdict: 'allow', task_state: 'claimed' });
        const second = next.body.run_id as string;
        expect(second).not.toBe(first);

        const late = await event(d, {
          event: 'post_tool',
          ...call,
          outcome: 'succeeded',
          output: 'built',
        });
        expect(late.body).toMatchObject({ run_id: first, task_key: 't1', task_state: 'succeeded' });
        expect((await rowsOf(d, second))[0]).toMatchObject({ state: 'claimed' });
        expect(await unstagedOf(d, second)).toEqual([]);
      });

      it('commits to no row when identical calls of two turns await it', async ({
        onTestFinished,
      }) => {
        const d = await bypassing(onTestFinished);
        const first = (await event(d, { event: 'pre_tool', ...call })).body.run_id as string;
        expect((await d.member.post(`${d.ws}/runs/${first}/stop`, {})).status).toBe(200);
        const next = await event(d, { event: 'pre_tool', ...call });
        expect(next.body).toMatchObject({ verdict: 'allow', task_state: 'claimed' });
        const second = next.body.run_id as string;
        expect(second).not.toBe(first);

        const late = await event(d, {
          event: 'post_tool',
          ...call,
          outcome: 'succeeded',
          output: 'built',
        });
        expect(late.body).toMatchObject({ verdict: 'ack', run_id: second, task_key: null });
        expect(late.body.reason).toContain('more than one turn');
        // The stop closed the first turn's call unreported; neither row takes what ran.
        expect((await rowsOf(d, first))[0]).toMatchObject({
          state: 'failed',
          error: { code: 'outcome_unknown' },
        });
        expect((await rowsOf(d, second))[0]).toMatchObject({ state: 'claimed' });
        expect(await unstagedOf(d, second)).toEqual(['run.unstaged_call']);
      });

      it('goes to the claimed call when the other turn closed its call longer than a lease ago', async ({
        onTestFinished,
      }) => {
        let offset = 0;
        const d = await bypassing(onTestFinished, { clock: () => Date.now() + offset });
        const first = (await event(d, { event: 'pre_tool', ...call })).body.run_id as string;
        expect((await d.member.post(`${d.ws}/runs/${first}/stop`, {})).status).toBe(200);
        offset += 2 * 3_600_000;
        const second = (await event(d, { event: 'pre_tool', ...call })).body.run_id as string;
        expect(second).not.toBe(first);

        const own = await event(d, {
          event: 'post_tool',
          ...call,
          outcome: 'succeeded',
          output: 'ok',
        });
        expect(own.body).toMatchObject({ run_id: second, task_key: 't1', task_state: 'succeeded' });
        expect((await rowsOf(d, first))[0]?.state).toBe('failed');
      });
    },
  );
}
