import { afterEach, describe, expect, it } from 'vitest';
import { isAirlockError } from '../../errors.js';
import type { Principal } from '../../store/accounts.js';
import { type Deployment, deploy, waitFor } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';
import { denyTask, resolveTask } from './decisions.js';
import { retryTask } from './retry.js';

const [sqlite] = await backends();

/** A member principal of the deployment's workspace, as the member plane hands the verbs one. */
function member(d: Deployment): Principal {
  return {
    credential_id: 'cred_retrier',
    kind: 'member',
    workspace_id: d.workspaceId,
    agent_application_id: null,
    role: 'approver',
  };
}

function scripted(rounds: unknown[], extra: Record<string, unknown> = {}) {
  return { approval_mode: 'bypass', input: 'go', provider: { kind: 'scripted', rounds }, ...extra };
}

/** The row and the run's events as the store holds them. */
async function stored(d: Deployment, runId: string, key: string) {
  const db = d.airlock.store.db;
  const row = await db
    .selectFrom('tasks')
    .selectAll()
    .where('run_id', '=', runId)
    .where('key', '=', key)
    .executeTakeFirstOrThrow();
  const events = await db
    .selectFrom('run_events')
    .select(['type', 'data'])
    .where('run_id', '=', runId)
    .execute();
  return { row, events };
}

/** The keys of the rows holding a run. */
async function heldKeys(d: Deployment, runId: string): Promise<string[]> {
  const run = (await d.member.get(`${d.ws}/runs/${runId}`)).body;
  return run.attention.flatMap((a: { blocked_task_keys: string[] }) => a.blocked_task_keys);
}

/** The run's hook row, once planted. */
async function hookRow(d: Deployment, runId: string) {
  return d.airlock.store.db
    .selectFrom('tasks')
    .selectAll()
    .where('run_id', '=', runId)
    .where('kind', '=', 'hook')
    .executeTakeFirst();
}

async function refusal(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    return isAirlockError(error) ? { status: error.status, code: error.code } : error;
  }
  return null;
}

describe('retry on a real SQLite store', () => {
  let d: Deployment | undefined;
  afterEach(async () => {
    await d?.close();
    d = undefined;
  });

  it('a declined question asks again with a fresh clock, and its answer ends the run', async () => {
    d = await deploy(sqlite!);
    const ctx = d.airlock.kernel.context;
    const created = await d.member.post(
      `${d.ws}/runs`,
      scripted([
        { tool_calls: [{ name: 'ask', input: { prompt: 'Deploy?' }, on_failure: 'hold' }] },
        { final: 'deployed', expect: 'yes' },
      ]),
    );
    const address = { workspaceId: d.workspaceId, runId: created.body.id, taskKey: 't1' };
    const declined = await resolveTask(ctx, member(d), address, { outcome: 'failed' });
    expect(declined).toMatchObject({ state: 'failed', error: { code: 'declined' } });
    const before = Date.now();
    const retried = await retryTask(ctx, member(d), address);
    expect(retried).toMatchObject({ kind: 'ask', state: 'awaiting_input', error: null });
    const { row, events } = await stored(d, created.body.id, 't1');
    expect(row).toMatchObject({ state: 'awaiting_input', decided_by: null, result: null });
    expect(row.deadline_at).toBeGreaterThanOrEqual(before + ctx.parkTtlMs);
    expect(events.slice(-2).map((e) => e.type)).toEqual(['task.retried', 'run.attention_required']);
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ reason: 'awaiting_human' });
    const answered = await resolveTask(ctx, member(d), address, { content: 'yes' });
    expect(answered.state).toBe('succeeded');
    const run = await waitFor(async () => {
      const r = (await d!.member.get(`${d!.ws}/runs/${created.body.id}`)).body;
      return r.state !== 'running' && r;
    });
    expect(run).toMatchObject({ state: 'completed', final_answer: 'deployed' });
  });

  it('an invalid question is refused a retry with retry_refused; nothing changes and the hold stays', async () => {
    d = await deploy(sqlite!);
    const created = await d.member.post(
      `${d.ws}/runs`,
      scripted([
        { tool_calls: [{ name: 'ask', input: { nope: 1 }, on_failure: 'hold' }] },
        { final: 'x' },
      ]),
    );
    const runId = created.body.id;
    const address = { workspaceId: d.workspaceId, runId, taskKey: 't1' };
    const before = await stored(d, runId, 't1');
    expect(before.row).toMatchObject({
      kind: 'ask',
      state: 'failed',
      error_code: 'invalid_question',
    });
    const refused = await refusal(retryTask(d.airlock.kernel.context, member(d), address));
    expect(refused).toEqual({ status: 409, code: 'retry_refused' });
    expect(await stored(d, runId, 't1')).toEqual(before);
    const run = (await d.member.get(`${d.ws}/runs/${runId}`)).body;
    expect(run.attention).toEqual([{ reason: 'failure_hold', blocked_task_keys: ['t1'] }]);
  });

  it('a hook a deny rule refused is refused again on retry; nothing changes and the hold stays', async () => {
    d = await deploy(sqlite!);
    const created = await d.member.post(
      `${d.ws}/runs`,
      scripted([{ final: 'answer' }], {
        approval_rules: [{ tool: 'check', verdict: 'deny', origin: 'kernel', reason: 'no hooks' }],
        lifecycle_hooks: { stop: { tool: 'check', timeout_ms: 30_000, max_continuations: 1 } },
      }),
    );
    const runId = created.body.id;
    await waitFor(async () => (await heldKeys(d!, runId)).length > 0);
    const before = await stored(d, runId, 't1');
    expect(before.row).toMatchObject({ kind: 'hook', error_code: 'approval_denied' });
    const address = { workspaceId: d.workspaceId, runId, taskKey: 't1' };
    const refused = await refusal(retryTask(d.airlock.kernel.context, member(d), address));
    expect(refused).toEqual({ status: 409, code: 'retry_refused' });
    expect(await stored(d, runId, 't1')).toEqual(before);
    const run = (await d.member.get(`${d.ws}/runs/${runId}`)).body;
    expect(run).toMatchObject({ state: 'running', final_answer: null });
    expect(run.attention).toEqual([{ reason: 'failure_hold', blocked_task_keys: ['t1'] }]);
  });

  it('a hook a person denied parks again on retry: the approvers decide, not the retrier', async () => {
    d = await deploy(sqlite!);
    const ctx = d.airlock.kernel.context;
    const created = await d.member.post(
      `${d.ws}/runs`,
      scripted([{ final: 'answer' }], {
        approval_rules: [{ tool: 'check', verdict: 'ask', origin: 'kernel' }],
        lifecycle_hooks: { stop: { tool: 'check', timeout_ms: 30_000, max_continuations: 1 } },
      }),
    );
    const runId = created.body.id;
    const address = { workspaceId: d.workspaceId, runId, taskKey: 't1' };
    await waitFor(async () => (await hookRow(d!, runId))?.state === 'needs_approval');
    await denyTask(ctx, member(d), address, 'not now');
    const retried = await retryTask(ctx, member(d), address);
    expect(retried).toMatchObject({ kind: 'hook', state: 'needs_approval', error: null });
    const { row, events } = await stored(d, runId, 't1');
    // A member's own run has no application to address: the member door alone decides it.
    expect(row).toMatchObject({ decided_by: null, addressee: null, error_code: null });
    expect(row.effect_profile).not.toBeNull();
    expect(row.deadline_at).toBeGreaterThan(Date.now());
    const [retriedEvent, announced] = events.slice(-2);
    expect([retriedEvent?.type, announced?.type]).toEqual([
      'task.retried',
      'run.attention_required',
    ]);
    expect(JSON.parse(retriedEvent!.data)).toMatchObject({
      state: 'needs_approval',
      approvals_required: 1,
    });
    expect(JSON.parse(announced!.data)).toMatchObject({ reason: 'approval_required' });
  });

  it("a tool call refused by a rule or a person is the model's to read: its retry is task_not_waiting", async () => {
    d = await deploy(sqlite!);
    const ctx = d.airlock.kernel.context;
    const created = await d.member.post(
      `${d.ws}/runs`,
      scripted(
        [
          {
            tool_calls: [
              { name: 'deploy', on_failure: 'hold' },
              { name: 'shell', on_failure: 'hold' },
              { name: 'shell', input: { again: true } },
            ],
          },
          { final: 'read the refusals' },
        ],
        { approval_mode: 'ask', approval_rules: [{ tool: 'deploy', verdict: 'deny' }] },
      ),
    );
    const runId = created.body.id;
    const at = (taskKey: string) => ({ workspaceId: d!.workspaceId, runId, taskKey });
    await denyTask(ctx, member(d), at('t2'), 'no shell');
    for (const key of ['t1', 't2']) {
      expect((await stored(d, runId, key)).row.error_code).toBe('approval_denied');
      const refused = await refusal(retryTask(ctx, member(d), at(key)));
      expect([key, refused]).toEqual([key, { status: 409, code: 'task_not_waiting' }]);
    }
    // t3 still parked kept the run running through both retries.
    await denyTask(ctx, member(d), at('t3'), undefined);
    const run = await waitFor(async () => {
      const r = (await d!.member.get(`${d!.ws}/runs/${runId}`)).body;
      return r.state !== 'running' && r;
    });
    expect(run.final_answer).toBe('read the refusals');
  });
});
