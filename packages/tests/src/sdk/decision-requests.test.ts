import {
  type Approval,
  createClient,
  DeadlineExceededError,
  type Decision,
  type Question,
  ValidationError,
  type Workspace,
} from '@airlock/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, scriptedRun } from '../support/kernel.js';
import { rejectionOf, useMemberKernel, within } from '../support/member-kernel.js';
import { askUnsupportedReason } from '../support/probes.js';
import { type StallingProxy, startStallingProxy } from '../support/stalling-proxy.js';

/** Starts a run whose one call (or question) rests on a person, and answers its decision. */
async function parked(ws: Workspace, call: { name: string; input: unknown }): Promise<Decision> {
  const created = await ws.runs.create(
    scriptedRun('ask', [{ tool_calls: [call] }, { final: 'done' }]),
  );
  return eventually(() => ws.decisions.get(created.id, 't1'), { what: 'the run to park' });
}

const approval = async (ws: Workspace) =>
  (await parked(ws, { name: 'deploy', input: { to: 'prod' } })) as Approval;

describe("a decision's approve, deny and answer take { signal, timeoutMs } as the SDK's other writes do", () => {
  const file = useMemberKernel();
  const member = file.workspace;

  /** The row as the kernel holds it now, read around any proxy. */
  const rowOf = (decision: Decision) => member().runs.run(decision.run_id).task(decision.task_key);

  it('an aborted signal rejects with its reason and nothing is decided; a bad timeoutMs is refused before sending', async () => {
    const decision = await approval(member());
    const gone = AbortSignal.abort(new Error('the approver left'));
    expect(await rejectionOf(decision.approve({ signal: gone }))).toMatchObject({
      message: 'the approver left',
    });
    expect(await rejectionOf(decision.deny({ reason: 'no', signal: gone }))).toMatchObject({
      message: 'the approver left',
    });
    const refused = await rejectionOf(decision.approve({ timeoutMs: -1 }));
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).problems).toEqual([
      expect.objectContaining({ code: 'invalid_input', pointer: '/timeoutMs' }),
    ]);
    expect(await rowOf(decision)).toMatchObject({ state: 'needs_approval', decided_by: null });
    // A live signal and a timeout of its own: the approval lands.
    const controller = new AbortController();
    const approved = await decision.approve({ signal: controller.signal, timeoutMs: 5000 });
    expect(approved).toMatchObject({ key: decision.task_key, decided_by: expect.any(String) });
  });

  it('a question is answered under a signal too', async (context) => {
    const reason = await askUnsupportedReason(file.kernel);
    if (reason) context.skip(reason);
    const question = (await parked(member(), {
      name: 'ask',
      input: { prompt: 'which region?', options: ['eu', 'us'] },
    })) as Question;
    const gone = AbortSignal.abort(new Error('the person left'));
    expect(await rejectionOf(question.answer({ content: 'eu', signal: gone }))).toMatchObject({
      message: 'the person left',
    });
    expect((await rowOf(question)).state).toBe('awaiting_input');
    expect((await question.answer({ content: 'eu', timeoutMs: 5000 })).state).not.toBe(
      'awaiting_input',
    );
  });

  describe('against a kernel that stops answering after the decision was read', () => {
    let proxy: StallingProxy | undefined;
    afterEach(async () => {
      await proxy?.close();
    });

    it("a decision's own timeoutMs overrides the client's: DeadlineExceededError, and the row still waits", async () => {
      proxy = await startStallingProxy(file.kernel.url);
      const { tokens, id } = file.kernel.workspace;
      const ws = createClient({
        url: proxy.url,
        token: tokens.member,
        timeoutMs: 60_000,
      }).workspace(id);
      const decision = await approval(ws);
      proxy.stall();
      const approve = await within(rejectionOf(decision.approve({ timeoutMs: 200 })), 5000);
      expect(approve).toBeInstanceOf(DeadlineExceededError);
      expect(approve).toMatchObject({ code: 'deadline_exceeded', timeoutMs: 200 });
      expect((approve as DeadlineExceededError).detail).toContain('may have been applied');
      const deny = await within(rejectionOf(decision.deny({ reason: 'no', timeoutMs: 200 })), 5000);
      expect(deny).toMatchObject({ code: 'deadline_exceeded', timeoutMs: 200 });
      const controller = new AbortController();
      const pending = rejectionOf(decision.approve({ signal: controller.signal }));
      setTimeout(() => controller.abort(new Error('the approver left')), 100);
      expect(await within(pending, 5000)).toMatchObject({ message: 'the approver left' });
      expect(await rowOf(decision)).toMatchObject({ state: 'needs_approval', decided_by: null });
    });
  });
});
