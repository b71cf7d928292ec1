import { describe, expect, it, type TestContext } from 'vitest';
import { authenticateToken } from '../../api/access.js';
import { hookEvent } from '../../api/hooks.js';
import { readHookSession } from '../../store/hook-sessions.js';
import { type Deployment, deploy } from '../../testing/harness.js';
import { bashPreTool, postHookEvent } from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * A pre_tool `look`: what became of a call, read without taking its grant.
 * A framework's resume reads a person's decision this way, and the grant is
 * left for the check of whichever process runs the call: taken once, by it.
 */

const all = await backends();

for (const backend of all) {
  // Each case has a kernel of its own: side by side.
  describe.skipIf(backend.skip !== null)(
    `a look at a call (${backend.name})`,
    {
      concurrent: true,
    },
    () => {
      /** A kernel of the backend, closed with the test. */
      async function kernel(onTestFinished: TestContext['onTestFinished']): Promise<Deployment> {
        const d = await deploy(backend);
        onTestFinished(() => d.close());
        return d;
      }

      const push = bashPreTool('git push origin main', 'tu-1');
      const look = { ...push, look: true };

      async function parked(d: Deployment): Promise<string> {
        await d.agent.put('/agent_api/v1/profile/configuration', { approval_mode: 'ask' });
        const answer = await postHookEvent(d, push);
        expect(answer.body).toMatchObject({ verdict: 'wait', task_key: 't1' });
        return `${d.ws}/runs/${answer.body.run_id as string}/tasks/t1`;
      }

      it('reads a park and its approval without taking the grant, which the next check takes once', async ({
        onTestFinished,
      }) => {
        const d = await kernel(onTestFinished);
        const task = await parked(d);
        expect((await postHookEvent(d, look)).body).toMatchObject({
          verdict: 'wait',
          task_key: 't1',
          task_state: 'needs_approval',
        });
        expect((await d.member.post(`${task}/approve`, {})).status).toBe(200);

        for (const _ of [1, 2]) {
          const seen = await postHookEvent(d, look);
          expect(seen.body).toMatchObject({ verdict: 'allow', task_state: 'runnable' });
          expect((await d.member.get(task)).body).toMatchObject({ state: 'runnable', attempts: 0 });
        }
        const granted = await postHookEvent(d, push);
        expect(granted.body).toMatchObject({ verdict: 'allow', task_state: 'claimed' });
        const second = await postHookEvent(d, push);
        expect(second.body.error).toMatchObject({ code: 'not_claimable' });
        expect((await postHookEvent(d, look)).body).toMatchObject({
          verdict: 'allow',
          task_state: 'claimed',
        });
      });

      it('leaves a grant taken by another check when its own client leaves', async ({
        onTestFinished,
      }) => {
        const d = await kernel(onTestFinished);
        const task = await parked(d);
        expect((await d.member.post(`${task}/approve`, {})).status).toBe(200);
        expect((await postHookEvent(d, push)).body).toMatchObject({ task_state: 'claimed' });
        const principal = await authenticateToken(d.airlock.kernel, d.tokens.agent);
        const context = { kernel: d.airlock.kernel, principal, signal: AbortSignal.abort() };
        const answer = await hookEvent.handle(context, {
          agent: 'claude-code',
          session_id: 's-1',
          ...(look as typeof look & { event: 'pre_tool' }),
        });
        expect(answer).toMatchObject({ verdict: 'allow', task_state: 'claimed' });
        expect((await d.member.get(task)).body.state).toBe('claimed');
      });

      it("reads a call of an earlier turn after the session's next turn began", async ({
        onTestFinished,
      }) => {
        const d = await kernel(onTestFinished);
        const task = await parked(d);
        const runPath = task.replace(/\/tasks\/t1$/, '');
        expect((await d.member.post(`${runPath}/stop`, {})).status).toBe(200);
        const next = await postHookEvent(d, bashPreTool('ls', 'tu-2'));
        expect(next.body.run_id).not.toBe(runPath.split('/').at(-1));
        const seen = await postHookEvent(d, look);
        expect(seen.status).toBe(200);
        expect(seen.body).toMatchObject({
          run_id: runPath.split('/').at(-1),
          task_key: 't1',
          task_state: 'canceled',
        });
        expect(seen.body.verdict).not.toBe('allow');
      });

      it('refuses a call the session has no row for, planting none and opening no session', async ({
        onTestFinished,
      }) => {
        const d = await kernel(onTestFinished);
        const unknown = await d.agent.post('/agent_api/v1/hooks/events', {
          agent: 'ai-sdk',
          session_id: 'never-seen',
          ...look,
        });
        expect(unknown.status).toBe(404);
        expect(unknown.body.error).toMatchObject({ code: 'task_not_found' });
        const task = await parked(d);
        const other = await postHookEvent(d, { ...look, tool_use_id: 'tu-9' });
        expect(other.body.error).toMatchObject({ code: 'task_not_found' });
        const runId = task.split('/runs/')[1]?.split('/')[0];
        const rows = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body;
        expect(rows.tasks).toHaveLength(1);
        const session = await readHookSession(d.airlock.store, {
          workspaceId: d.workspaceId,
          agentApplicationId: d.appId,
          agent: 'ai-sdk',
          sessionId: 'never-seen',
        });
        expect(session).toBeNull();
      });

      it('refuses another call presented under the call id, and look on another event', async ({
        onTestFinished,
      }) => {
        const d = await kernel(onTestFinished);
        await parked(d);
        const mismatch = await postHookEvent(d, { ...bashPreTool('rm -rf /', 'tu-1'), look: true });
        expect(mismatch.body.error).toMatchObject({ code: 'call_mismatch' });
        const stop = await postHookEvent(d, { event: 'stop', text: 'done', look: true });
        expect(stop.status).toBe(400);
        expect(stop.body.error).toMatchObject({ code: 'invalid_input' });
        const unnamed = await postHookEvent(d, {
          event: 'pre_tool',
          tool_name: 'Bash',
          tool_input: {},
          look: true,
        });
        expect(unnamed.body.error).toMatchObject({ code: 'invalid_input' });
      });
    },
  );
}
