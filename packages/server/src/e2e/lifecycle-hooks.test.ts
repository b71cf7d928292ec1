import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy, sharedKernels, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers loosely and assert on them.
type Loose = any;

/** A standalone run declaring lifecycle hooks, with scripted rounds. */
function hooked(hooks: Record<string, unknown>, rounds: unknown[]) {
  return {
    approval_mode: 'bypass',
    input: 'finish the job',
    lifecycle_hooks: hooks,
    provider: { kind: 'scripted', rounds },
  };
}

const stopHook = (extra: Record<string, unknown> = {}) => ({
  stop: { tool: 'check_stop', timeout_ms: 5000, max_continuations: 2, ...extra },
});

/**
 * Plays a hook executor over REST: claims each hook row of the run and commits
 * what `answer` returns for its input (a commit body without claim_id), or
 * leaves it claimed when `answer` returns null. Resolves when `until` holds.
 */
async function serveHooks<T>(
  d: Deployment,
  runId: string,
  answer: (input: Loose) => Record<string, unknown> | null,
  until: () => Promise<T | null | false | undefined>,
): Promise<T> {
  const seen = new Set<string>();
  return waitFor(
    async () => {
      const inbox = await d.executor.get('/executor_api/v1/inbox');
      for (const item of inbox.body.items) {
        if (item.kind !== 'hook' || item.run_id !== runId || seen.has(item.task_key)) continue;
        const claim = await d.executor.post(
          `/executor_api/v1/runs/${runId}/tasks/${item.task_key}/claim`,
        );
        if (claim.status !== 200) continue;
        seen.add(item.task_key);
        const body = answer(item.tool_input);
        if (body === null) continue;
        await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/${item.task_key}/commit`, {
          claim_id: claim.body.claim_id,
          ...body,
        });
      }
      return until();
    },
    { what: `hooks of ${runId}` },
  );
}

const decide = (decision: unknown) => ({
  outcome: 'succeeded',
  result: { structured_content: decision },
});

async function hookRows(d: Deployment, runId: string): Promise<Loose[]> {
  const tasks = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks;
  return tasks.filter((t: { kind: string }) => t.kind === 'hook');
}

async function heldRun(d: Deployment, runId: string) {
  const run = (await d.member.get(`${d.ws}/runs/${runId}`)).body;
  return run.attention.some((a: { reason: string }) => a.reason === 'failure_hold') && run;
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`lifecycle hooks (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });

    it('turn_start runs before the first model request; stop accepts the answer', async () => {
      d = await kernels.deploy(backend);
      const hooks = {
        turn_start: { tool: 'on_turn', timeout_ms: 5000 },
        ...stopHook(),
      };
      const created = await d.member.post(`${d.ws}/runs`, hooked(hooks, [{ final: 'all done' }]));
      const runId = created.body.id;
      expect(created.body.state).toBe('running');
      // Before the turn_start hook commits, the model has not been asked.
      const first = await hookRows(d, runId);
      expect(first).toEqual([
        expect.objectContaining({ kind: 'hook', origin: 'kernel', tool_name: 'on_turn' }),
      ]);
      expect(first[0].tool_input).toEqual({
        event: 'turn_start',
        task_key: first[0].key,
        run_public_id: runId,
        conversation_public_id: null,
      });
      const inputs: Loose[] = [];
      const run = await serveHooks(
        d,
        runId,
        (input) => {
          inputs.push(input);
          return decide({ continue: false });
        },
        async () => {
          const r = (await d.member.get(`${d.ws}/runs/${runId}`)).body;
          return r.state !== 'running' && r;
        },
      );
      expect(run).toMatchObject({ state: 'completed', final_answer: 'all done' });
      expect(inputs.map((i) => i.event)).toEqual(['turn_start', 'stop']);
      expect(inputs[1]).toMatchObject({ output_preview: 'all done', output_size_bytes: 8 });
    });

    it('a stop hook that always continues ends at exactly max_continuations with a failed hook task and a hold', async () => {
      d = await kernels.deploy(backend);
      const created = await d.member.post(
        `${d.ws}/runs`,
        hooked(stopHook(), [
          { final: 'draft 1' },
          { final: 'draft 2', expect: 'verify first' },
          { final: 'draft 3', expect: 'verify first' },
          { final: 'draft 4' },
        ]),
      );
      const runId = created.body.id;
      const held = await serveHooks(
        d,
        runId,
        () => decide({ continue: true, feedback: 'verify first' }),
        () => heldRun(d, runId),
      );
      expect(held).toMatchObject({ state: 'running', final_answer: null });
      const rows = await hookRows(d, runId);
      expect(rows.map((r) => r.state)).toEqual(['succeeded', 'succeeded', 'failed']);
      expect(rows[2].error.code).toBe('max_continuations_exceeded');
      expect(rows[2].tool_input.output_preview).toBe('draft 3');
      const events = (await d.member.get(`${d.ws}/runs/${runId}/events?limit=1000`)).body.events;
      expect(events.filter((e: Loose) => e.type === 'run.continued')).toHaveLength(2);
      expect(events.some((e: Loose) => e.type === 'run.completed')).toBe(false);
      const abandoned = await d.member.post(`${d.ws}/runs/${runId}/abandon`);
      expect(abandoned.body).toMatchObject({ state: 'failed', final_answer: null });
    });

    for (const [name, body] of [
      ['commits continue:true without feedback', decide({ continue: true })],
      ['commits an extra field', decide({ continue: false, reason: 'x' })],
      [
        'commits a bare decision without structured_content',
        { outcome: 'succeeded', result: { continue: false } },
      ],
      ['fails', { outcome: 'failed', error: { code: 'checker_crashed', detail: 'boom' } }],
    ] as const) {
      it(`a stop hook that ${name} is a visible failure and a hold, never a delivered answer`, async () => {
        d = await kernels.deploy(backend);
        const created = await d.member.post(`${d.ws}/runs`, hooked(stopHook(), [{ final: 'x' }]));
        const runId = created.body.id;
        const held = await serveHooks(
          d,
          runId,
          () => ({ ...body }),
          () => heldRun(d, runId),
        );
        expect(held).toMatchObject({ state: 'running', final_answer: null });
        const [row] = await hookRows(d, runId);
        expect(row.state).toBe('failed');
        expect(row.error.code).toBe(
          body.outcome === 'failed' ? 'checker_crashed' : 'invalid_hook_result',
        );
      });
    }

    it('a hook that times out holds the run; a retry runs it again and the answer is delivered', async () => {
      d = await kernels.deploy(backend);
      // The retry arms the timeout afresh: 2 s leaves the retried attempt room to claim and
      // commit on a loaded machine (300 ms timed it out again under CI load, on PostgreSQL).
      const created = await d.member.post(
        `${d.ws}/runs`,
        hooked(stopHook({ timeout_ms: 2_000 }), [{ final: 'late' }]),
      );
      const runId = created.body.id;
      // Claimed and never committed: the timeout fires.
      await serveHooks(
        d,
        runId,
        () => null,
        () => heldRun(d, runId),
      );
      const [row] = await hookRows(d, runId);
      expect(row).toMatchObject({ state: 'timed_out', error: { code: 'hook_timed_out' } });
      const retried = await d.member.post(`${d.ws}/runs/${runId}/tasks/${row.key}/retry`);
      expect(retried.body.state).toBe('runnable');
      const run = await serveHooks(
        d,
        runId,
        () => decide({ continue: false }),
        async () => {
          const r = (await d.member.get(`${d.ws}/runs/${runId}`)).body;
          return r.state !== 'running' && r;
        },
      );
      expect(run).toMatchObject({ state: 'completed', final_answer: 'late' });
    });

    it('hooks cross the approval stage: a kernel-origin ask rule parks one, a deny rule fails it closed', async () => {
      d = await kernels.deploy(backend);
      const parked = await d.member.post(`${d.ws}/runs`, {
        ...hooked(stopHook(), [{ final: 'reviewed' }]),
        approval_rules: [{ tool: 'check_stop', verdict: 'ask', origin: 'kernel' }],
      });
      const [row] = await hookRows(d, parked.body.id);
      expect(row).toMatchObject({ state: 'needs_approval', origin: 'kernel' });
      const approved = await d.member.post(
        `${d.ws}/runs/${parked.body.id}/tasks/${row.key}/approve`,
      );
      expect(approved.body.state).toBe('runnable');
      expect(approved.body.deadline_at).toBeGreaterThan(Date.now());
      const run = await serveHooks(
        d,
        parked.body.id,
        () => decide({ continue: false }),
        async () => {
          const r = (await d.member.get(`${d.ws}/runs/${parked.body.id}`)).body;
          return r.state !== 'running' && r;
        },
      );
      expect(run.final_answer).toBe('reviewed');
      const denied = await d.member.post(`${d.ws}/runs`, {
        ...hooked(stopHook(), [{ final: 'unchecked' }]),
        approval_rules: [{ tool: 'check_stop', verdict: 'deny', origin: 'kernel', reason: 'no' }],
      });
      expect(denied.body).toMatchObject({ state: 'running', final_answer: null });
      expect(denied.body.attention).toEqual([
        { reason: 'failure_hold', blocked_task_keys: ['t1'] },
      ]);
    });

    it('force stop bypasses stop and cancels claimed hook work', async () => {
      d = await kernels.deploy(backend);
      const created = await d.member.post(`${d.ws}/runs`, hooked(stopHook(), [{ final: 'x' }]));
      const runId = created.body.id;
      const [row] = await hookRows(d, runId);
      const claim = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/${row.key}/claim`);
      expect(claim.status).toBe(200);
      const stopped = await d.member.post(`${d.ws}/runs/${runId}/stop`);
      expect(stopped.body).toMatchObject({ state: 'canceled', final_answer: null });
      const late = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/${row.key}/commit`, {
        claim_id: claim.body.claim_id,
        ...decide({ continue: false }),
      });
      expect(late.status).toBe(409);
      expect((await hookRows(d, runId))[0].state).toBe('canceled');
    });

    it('a turn freezes the profile hooks; regeneration reuses them and runs turn_start again', async () => {
      d = await kernels.deploy(backend);
      await d.agent.put('/agent_api/v1/profile/configuration', {
        approval_mode: 'ask',
        lifecycle_hooks: { turn_start: { tool: 'on_turn', timeout_ms: 5000 } },
      });
      const refused = await d.agent.put('/agent_api/v1/profile/configuration', {
        lifecycle_hooks: { turn_start: { tool: 'on_turn', timeout_ms: 5000 } },
      });
      expect(refused.status).toBe(422);
      const conversation = await d.agent.post('/agent_api/v1/conversations', {});
      const turn = await d.agent.post(
        `/agent_api/v1/conversations/${conversation.body.id}/inputs`,
        {
          input: 'hi',
          provider: { kind: 'scripted', rounds: [{ final: 'hello' }] },
        },
      );
      const [row] = await hookRows(d, turn.body.id);
      expect(row.tool_input.conversation_public_id).toBe(conversation.body.id);
      await d.agent.put('/agent_api/v1/profile/configuration', { approval_mode: 'ask' });
      const regenerated = await d.agent.post(`/agent_api/v1/runs/${turn.body.id}/regenerate`, {});
      expect(regenerated.body.lifecycle_hooks).toEqual(turn.body.lifecycle_hooks);
      const again = await hookRows(d, regenerated.body.id);
      expect(again.map((r) => r.tool_input.event)).toEqual(['turn_start']);
    });

    it('scheduling retried after a kernel restart reuses the one hook task of an event and source', async () => {
      // A kernel of its own: the case restarts it.
      d = await deploy(backend);
      const created = await d.member.post(`${d.ws}/runs`, hooked(stopHook(), [{ final: 'x' }]));
      const runId = created.body.id;
      const [row] = await hookRows(d, runId);
      await d.restart();
      // The scheduler takes the step again, as after a crash between its steps.
      await d.airlock.store.db
        .updateTable('runs')
        .set({ phase: 'model' })
        .where('id', '=', runId)
        .execute();
      await d.airlock.kernel.drive(runId);
      await d.airlock.kernel.drive(runId);
      const rows = await hookRows(d, runId);
      expect(rows.map((r) => r.key)).toEqual([row.key]);
      const duplicate = d.airlock.store.db
        .insertInto('tasks')
        .values({
          ...(await d.airlock.store.db
            .selectFrom('tasks')
            .selectAll()
            .where('run_id', '=', runId)
            .executeTakeFirstOrThrow()),
          key: 't99',
        })
        .execute();
      await expect(duplicate).rejects.toThrow();
      const run = await serveHooks(
        d,
        runId,
        () => decide({ continue: false }),
        async () => {
          const r = (await d.member.get(`${d.ws}/runs/${runId}`)).body;
          return r.state !== 'running' && r;
        },
      );
      expect(run).toMatchObject({ state: 'completed', final_answer: 'x' });
    });
  });
}
