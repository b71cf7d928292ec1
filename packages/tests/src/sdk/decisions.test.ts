import type { ApprovalRule } from '@airlock/core';
import { type Approval, createClient, type Decision, isConflictError } from '@airlock/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, scriptedRun, startTestKernel, type TestKernel } from '../support/kernel.js';
import { askUnsupportedReason } from '../support/probes.js';

const rules: ApprovalRule[] = [
  { tool: 'bash', path: 'command', match: 'ls*', verdict: 'allow' },
  { tool: 'bash', path: 'command', match: '*rm -rf*', verdict: 'ask' },
];

describe('decisions through the SDK', () => {
  let kernel: TestKernel;
  let askSkip: string | null;
  beforeAll(async () => {
    kernel = await startTestKernel();
    askSkip = await askUnsupportedReason(kernel);
    if (askSkip) console.warn(`[airlock tests] skipping question tests: ${askSkip}`);
  });
  afterAll(async () => {
    await kernel?.close();
  });

  const member = () =>
    createClient({ url: kernel.url, token: kernel.workspace.tokens.member }).workspace(
      kernel.workspace.id,
    );

  it('runs the spec loop: every parked call approved, the loop ends with the run', async () => {
    const ws = member();
    const created = await ws.runs.create(
      scriptedRun(
        'rules',
        [
          { tool_calls: [{ name: 'bash', input: { command: 'rm -rf ./build' } }] },
          { tool_calls: [{ name: 'bash', input: { command: 'rm -rf ./dist' } }] },
          { final: 'cleaned' },
        ],
        rules,
      ),
    );
    const seen: Decision[] = [];
    const run = ws.runs.run(created.id);
    // The approved calls still need an executor; play one by hand through the REST door.
    const executing = serveBashByHand(kernel, created.id);
    for await (const d of run.decisions) {
      seen.push(d);
      d.isAsk() ? await d.answer({ content: 'Now' }) : await d.approve();
    }
    await executing;
    expect(seen.map((d) => [d.task_key, d.isApproval() && d.tool_name])).toEqual([
      ['t1', 'bash'],
      ['t2', 'bash'],
    ]);
    const first = seen[0] as Approval;
    expect(first.tool_input).toEqual({ command: 'rm -rf ./build' });
    expect(first.effect_profile).toMatchObject({
      tool_name: 'bash',
      mode: 'rules',
      origin: 'model',
      action_tags: ['delete', 'destructive'],
      targets: ['build'],
    });
    expect(first.effect_profile?.matched_rules).toEqual([
      expect.objectContaining({ index: 1, verdict: 'ask', rule: rules[1] }),
    ]);
    expect((await run.get()).state).toBe('completed');
    const decided = await run.task('t1');
    expect(decided.decided_by).toMatch(/^member:/);
  });

  it('denies with a reason the model reads', async () => {
    const ws = member();
    const created = await ws.runs.create(
      scriptedRun(
        'ask',
        [
          { tool_calls: [{ name: 'bash', input: { command: 'git push --force' } }] },
          { final: 'gave up', expect: ['approval_denied', 'not on main'] },
        ],
        [],
      ),
    );
    for await (const d of ws.runs.run(created.id).decisions) {
      if (d.isApproval()) await d.deny({ reason: 'not on main' });
    }
    const run = await ws.runs.run(created.id).get();
    expect(run).toMatchObject({ state: 'completed', final_answer: 'gave up' });
  });

  it('lists decisions across runs, and a second verb on a decided row is a ConflictError', async () => {
    const ws = member();
    const a = await ws.runs.create(scriptedRun('ask', [{ tool_calls: [{ name: 'x' }] }]));
    const b = await ws.runs.create(scriptedRun('ask', [{ tool_calls: [{ name: 'y' }] }]));
    const listed = (await ws.decisions.list()).filter((d) => [a.id, b.id].includes(d.run_id));
    expect(listed.map((d) => (d.isApproval() ? d.tool_name : null))).toEqual(['x', 'y']);
    const [first] = listed as [Approval];
    const stale = (await ws.decisions.list()).find((d) => d.run_id === a.id) as Approval;
    expect((await first.approve()).state).toBe('runnable');
    const refused = await stale.deny({ reason: 'late' }).catch((error: unknown) => error);
    expect(isConflictError(refused)).toBe(true);
    expect(refused).toMatchObject({ code: 'task_not_waiting', status: 409 });
    await ws.runs.run(a.id).stop();
    await ws.runs.run(b.id).stop();
  });

  it('yields decisions of every run on the workspace iterator as they park', async () => {
    const ws = member();
    const iterator = ws.decisions[Symbol.asyncIterator]();
    const created = await ws.runs.create(scriptedRun('ask', [{ tool_calls: [{ name: 'late' }] }]));
    let next = await iterator.next();
    while (!next.done && next.value.run_id !== created.id) next = await iterator.next();
    expect(next.value).toMatchObject({ run_id: created.id, task_key: 't1', tool_name: 'late' });
    await iterator.return?.();
    await ws.runs.run(created.id).stop();
  });

  it('yields a park again after it expired on hold and a person retried it', async () => {
    const short = await startTestKernel({ parkTtlMs: 300 });
    try {
      const ws = createClient({ url: short.url, token: short.workspace.tokens.member }).workspace(
        short.workspace.id,
      );
      const created = await ws.runs.create(
        scriptedRun('ask', [{ tool_calls: [{ name: 'deploy', on_failure: 'hold' }] }]),
      );
      const run = ws.runs.run(created.id);
      const spells: (number | null)[] = [];
      for await (const d of run.decisions) {
        spells.push(d.deadline_at);
        if (spells.length === 2) {
          await run.stop();
          break;
        }
        const held = await eventually(async () => {
          const view = await run.get();
          return view.attention.find((a) => a.reason === 'failure_hold');
        });
        expect(held.blocked_task_keys).toEqual([d.task_key]);
        await run.retryTask(d.task_key);
      }
      expect(spells).toHaveLength(2);
      expect(spells[1]).toBeGreaterThan(spells[0]!);
    } finally {
      await short.close();
    }
  });

  it('answers a question by its options', async (context) => {
    if (askSkip) {
      context.skip(askSkip);
      return;
    }
    const ws = member();
    const created = await ws.runs.create(
      scriptedRun('ask', [
        {
          tool_calls: [
            { name: 'ask', input: { prompt: 'Deploy when?', options: ['Now', 'Later'] } },
          ],
        },
        { final: 'deployed', expect: 'Now' },
      ]),
    );
    const questions: Decision[] = [];
    for await (const d of ws.runs.run(created.id).decisions) {
      questions.push(d);
      d.isAsk() ? await d.answer({ content: 'Now' }) : await d.approve();
    }
    const [question] = questions;
    expect(question?.isAsk() && [question.prompt, question.options, question.multi]).toEqual([
      'Deploy when?',
      ['Now', 'Later'],
      false,
    ]);
    expect((await ws.runs.run(created.id).get()).state).toBe('completed');
  });
});

/** Claims and commits the run's runnable bash rows over REST until the run ends. */
async function serveBashByHand(kernel: TestKernel, runId: string): Promise<void> {
  const headers = {
    authorization: `Bearer ${kernel.workspace.tokens.executor}`,
    'content-type': 'application/json',
  };
  const post = async (path: string, body: unknown) =>
    (
      await fetch(`${kernel.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })
    ).json() as Promise<Record<string, unknown>>;
  const runs = createClient({ url: kernel.url, token: kernel.workspace.tokens.member })
    .workspace(kernel.workspace.id)
    .runs.run(runId);
  await eventually(
    async () => {
      const answer = await post('/executor_api/v1/claim', { tool_names: ['bash'] });
      const claim = answer.claim as { claim_id: string; task: { key: string } } | null;
      if (claim) {
        await post(`/executor_api/v1/runs/${runId}/tasks/${claim.task.key}/commit`, {
          claim_id: claim.claim_id,
          outcome: 'succeeded',
          result: 'ok',
        });
      }
      return (await runs.get()).state !== 'running';
    },
    { what: 'the run to end' },
  );
}
