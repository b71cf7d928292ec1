import { afterEach, describe, expect, it } from 'vitest';
import { authenticateToken } from '../../api/access.js';
import { claudeCodeHook, hookEvent } from '../../api/hooks.js';
import { type Deployment, deploy, waitFor } from '../../testing/harness.js';
import { bashPreTool, postHookEvent } from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * A hook request whose client left while the kernel answered it (the
 * decision landed just as the agent's hook timed out): a grant nobody read
 * goes back to its row, approved and not granted, so the identical call made
 * again is granted once on it instead of parking a second time; and a held
 * native request whose client left asks the kernel nothing more.
 */

const all = await backends();

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`a grant whose reader left (${backend.name})`, () => {
    let d: Deployment;
    afterEach(async () => {
      await d?.close();
    });

    async function approvedPark(): Promise<{ runId: string; task: string }> {
      await d.agent.put('/agent_api/v1/profile/configuration', { approval_mode: 'ask' });
      const parked = await postHookEvent(d, bashPreTool('git push origin main', 'tu-1'));
      expect(parked.body).toMatchObject({ verdict: 'wait', task_key: 't1' });
      const runId = parked.body.run_id as string;
      const task = `${d.ws}/runs/${runId}/tasks/t1`;
      expect((await d.member.post(`${task}/approve`, {})).status).toBe(200);
      return { runId, task };
    }

    async function context(signal: AbortSignal) {
      const principal = await authenticateToken(d.airlock.kernel, d.tokens.agent);
      return { kernel: d.airlock.kernel, principal, signal };
    }

    const poll = {
      agent: 'claude-code' as const,
      session_id: 's-1',
      ...(bashPreTool('git push origin main', 'tu-1') as { event: 'pre_tool' }),
      task_key: 't1',
    };

    it('is given back when the client left before the answer, and the retry runs on the row', async () => {
      d = await deploy(backend);
      const { task } = await approvedPark();
      const answer = await hookEvent.handle(await context(AbortSignal.abort()), poll);
      expect(answer).toMatchObject({ verdict: 'allow', task_key: 't1' });
      expect((await d.member.get(task)).body.state).toBe('runnable');

      const retry = await postHookEvent(d, bashPreTool('git push origin main', 'tu-2'));
      expect(retry.body).toMatchObject({ verdict: 'allow', task_key: 't1', task_state: 'claimed' });
      const again = await postHookEvent(d, bashPreTool('git push origin main', 'tu-3'));
      expect(again.body).toMatchObject({ verdict: 'wait', task_key: 't2' });
    });

    it('is given back when the client leaves while the answer is written', async () => {
      d = await deploy(backend);
      const { task } = await approvedPark();
      const leaving = new AbortController();
      const answer = await hookEvent.handle(await context(leaving.signal), poll);
      expect(answer).toMatchObject({ verdict: 'allow', task_state: 'claimed' });
      expect((await d.member.get(task)).body.state).toBe('claimed');
      leaving.abort();
      await waitFor(async () => (await d.member.get(task)).body.state === 'runnable', {
        what: 'the unread grant given back',
      });
    });

    it('is never taken by a held native request whose client already left', async () => {
      d = await deploy(backend);
      const { task } = await approvedPark();
      const answer = await claudeCodeHook.handle(await context(AbortSignal.abort()), {
        hook_options: 'wait-5000',
        hook_event_name: 'PreToolUse',
        session_id: 's-1',
        tool_name: 'Bash',
        tool_input: { command: 'git push origin main' },
        tool_use_id: 'tu-1',
      });
      expect(answer).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny' } });
      const row = (await d.member.get(task)).body;
      expect(row).toMatchObject({ state: 'runnable', attempts: 0 });
    });
  });
}
