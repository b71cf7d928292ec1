import { createClient, type Executor, ToolError } from '@airlock/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { useExecutorKernel } from '../support/executor-kernel.js';
import { eventually, scriptedRun, startTurnWithStopHook } from '../support/kernel.js';
import { stopHookUnsupportedReason } from '../support/probes.js';

describe('createExecutor against a real kernel', () => {
  const fixture = useExecutorKernel();
  const { start, runs } = fixture;
  let stopHookSkip: string | null;
  beforeAll(async () => {
    stopHookSkip = await stopHookUnsupportedReason(fixture.kernel);
    if (stopHookSkip) console.warn(`[airlock tests] skipping the stop hook test: ${stopHookSkip}`);
  });

  it('serves a tool end to end: claimed on the nudge, result committed, the model reads it', async () => {
    const seen: { command: string; attempt: number; aborted: boolean }[] = [];
    const executor = start({
      bash: async (input: { command: string }, { attempt, signal }) => {
        seen.push({ command: input.command, attempt, aborted: signal.aborted });
        return `${input.command}: 3 files`;
      },
    });
    await executor.ready;
    const created = await runs().create(
      scriptedRun('bypass', [
        { tool_calls: [{ name: 'bash', input: { command: 'ls' } }] },
        { final: 'listed', expect: 'ls: 3 files' },
      ]),
    );
    const run = runs().run(created.id);
    const ended = await eventually(async () => {
      const view = await run.get();
      return view.state !== 'running' && view;
    });
    expect(ended).toMatchObject({ state: 'completed', final_answer: 'listed' });
    expect(seen).toEqual([{ command: 'ls', attempt: 1, aborted: false }]);
    const [task] = await run.tasks();
    expect(task).toMatchObject({ state: 'succeeded', result: 'ls: 3 files', attempts: 1 });
  });

  it('serves more than 256 tools (the most one claim names): a call of the 300th runs', async () => {
    const seen: string[] = [];
    const tools: Record<string, (input: unknown) => string> = {};
    for (let i = 0; i < 300; i += 1) {
      tools[`tool_${i}`] = () => {
        seen.push(`tool_${i}`);
        return `tool_${i} ok`;
      };
    }
    const errors: Error[] = [];
    const executor = start(tools, { onError: (error) => errors.push(error) });
    await executor.ready;
    const created = await runs().create(
      scriptedRun('bypass', [
        {
          tool_calls: [
            { name: 'tool_299', input: {} },
            { name: 'tool_3', input: {} },
          ],
        },
        { final: 'both ran', expect: ['tool_299 ok', 'tool_3 ok'] },
      ]),
    );
    const ended = await fixture.ended(created.id);
    expect(ended).toMatchObject({ state: 'completed', final_answer: 'both ran' });
    expect(seen.sort()).toEqual(['tool_299', 'tool_3']);
    // Before, every claim named all 300 and the kernel refused it (invalid_input).
    expect(errors).toEqual([]);
  });

  it('claims work that was already waiting when it connects, and commits thrown failures', async () => {
    const created = await runs().create(
      scriptedRun('bypass', [
        { tool_calls: [{ name: 'read', input: { path: 'missing.txt' } }] },
        { final: 'gave up', expect: ['not_found', 'no missing.txt here'] },
      ]),
    );
    start({
      read: (input: { path: string }) => {
        throw new ToolError('not_found', `no ${input.path} here`);
      },
    });
    const run = runs().run(created.id);
    const ended = await eventually(async () => {
      const view = await run.get();
      return view.state !== 'running' && view;
    });
    expect(ended).toMatchObject({ state: 'completed', final_answer: 'gave up' });
    expect((await run.tasks())[0]).toMatchObject({
      state: 'failed',
      error: { code: 'not_found', detail: 'no missing.txt here' },
    });
  });

  it('take() runs one row by its address, leaving its nudge alone; null for a row not runnable', async () => {
    let holdsWhileRunning: boolean | null = null;
    let executor: Executor | undefined;
    const ran: string[] = [];
    executor = start(
      {
        bash: async (input: { command: string }, { run_id, task_key }) => {
          holdsWhileRunning = executor?.holds(run_id, task_key) ?? null;
          ran.push(input.command);
          return `${input.command}: done`;
        },
      },
      // The rows of every run are left to take(): the nudges claim nothing.
      { leaves: () => true },
    );
    await executor.ready;
    const created = await runs().create(
      scriptedRun('ask', [
        { tool_calls: [{ name: 'bash', input: { command: 'make' } }] },
        { final: 'made', expect: 'make: done' },
      ]),
    );
    const run = runs().run(created.id);
    const parked = await eventually(async () => {
      const [task] = await run.tasks();
      return task?.state === 'needs_approval' && task;
    });
    // Parked: not this executor's to run yet.
    expect(await executor.take(created.id, parked.key)).toBeNull();
    const decisions = createClient({
      url: fixture.kernel.url,
      token: fixture.kernel.workspace.tokens.member,
    }).workspace(fixture.kernel.workspace.id).decisions;
    const approval = (await decisions.list()).find(
      (d) => d.isApproval() && d.task.run_id === created.id,
    );
    if (!approval?.isApproval()) throw new Error('no approval of the run');
    await approval.approve();
    // The approval nudged the executor, which left it: the row waits, unclaimed.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await run.tasks())[0]).toMatchObject({ state: 'runnable' });
    const committed = await executor.take(created.id, parked.key);
    expect(committed).toMatchObject({ key: parked.key, state: 'succeeded', result: 'make: done' });
    expect(holdsWhileRunning).toBe(true);
    expect(executor.holds(created.id, parked.key)).toBe(false);
    // Settled: a second take finds nothing to run.
    expect(await executor.take(created.id, parked.key)).toBeNull();
    expect(ran).toEqual(['make']);
  });

  it('heartbeats keep the lease of a task that runs longer than it', async () => {
    const errors: Error[] = [];
    start(
      {
        build: async (_input, { signal }) => {
          await new Promise((resolve) => setTimeout(resolve, 2500));
          return signal.aborted ? 'aborted' : 'built';
        },
      },
      { leaseMs: 1000, onError: (error) => errors.push(error) },
    );
    const created = await runs().create(
      scriptedRun('bypass', [
        { tool_calls: [{ name: 'build' }] },
        { final: 'ok', expect: 'built' },
      ]),
    );
    const run = runs().run(created.id);
    const ended = await eventually(
      async () => {
        const view = await run.get();
        return view.state !== 'running' && view;
      },
      { timeoutMs: 15_000 },
    );
    expect(ended.state).toBe('completed');
    expect((await run.tasks())[0]).toMatchObject({ state: 'succeeded', attempts: 1 });
    expect(errors).toEqual([]);
  });

  it('runs an approved call once a person approves it, and only tools it serves', async () => {
    const served: string[] = [];
    start({
      deploy: (input: { env: string }) => {
        served.push(input.env);
        return { deployed: input.env };
      },
    });
    const created = await runs().create(
      scriptedRun(
        'rules',
        [
          { tool_calls: [{ name: 'deploy', input: { env: 'prod' } }] },
          { final: 'shipped', expect: '"deployed":"prod"' },
        ],
        [{ tool: 'deploy', verdict: 'ask' }],
      ),
    );
    const run = runs().run(created.id);
    for await (const d of run.decisions)
      d.isAsk() ? await d.answer({ content: 'Now' }) : await d.approve();
    expect(await run.get()).toMatchObject({ state: 'completed', final_answer: 'shipped' });
    expect(served).toEqual(['prod']);
  });

  /** Declares a stop hook on the agent's profile and starts a turn that answers at once. */
  const turnWithStopHook = async (tool: string) =>
    runs().run(await startTurnWithStopHook(fixture.kernel, { tool, timeoutMs: 5000 }));

  it('serves the stop hook: the handler acknowledges and the turn completes', async (context) => {
    if (stopHookSkip) {
      context.skip(stopHookSkip);
      return;
    }
    const events: unknown[] = [];
    start({
      finish_check: (input: { event: string }) => {
        events.push(input.event);
        return { continue: false };
      },
    });
    const run = await turnWithStopHook('finish_check');
    const ended = await eventually(async () => {
      const view = await run.get();
      return view.state !== 'running' && view;
    });
    expect(ended).toMatchObject({ state: 'completed', final_answer: 'done' });
    expect(events).toEqual(['stop']);
    const hook = (await run.tasks()).find((task) => task.kind === 'hook');
    expect(hook).toMatchObject({
      state: 'succeeded',
      result: { structured_content: { continue: false } },
    });
  });

  it('refuses an invalid hook result with core before committing it', async (context) => {
    if (stopHookSkip) {
      context.skip(stopHookSkip);
      return;
    }
    start({ bad_check: () => ({ continue: true }) });
    const run = await turnWithStopHook('bad_check');
    const hook = await eventually(async () =>
      (await run.tasks()).find((task) => task.kind === 'hook' && task.state === 'failed'),
    );
    expect(hook.error?.code).toBe('invalid_hook_result');
    expect(hook.error?.detail).toContain('feedback');
    if ((await run.get()).state === 'running') await run.stop();
  });
});
