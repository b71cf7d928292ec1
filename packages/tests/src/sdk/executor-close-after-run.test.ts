import type { Executor } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';
import { useExecutorKernel } from '../support/executor-kernel.js';
import { scriptedRun } from '../support/kernel.js';

/**
 * `close({ abort: true })` that comes after a handler returned, before its
 * commit went out (here from `onRan`, as a gateway that shuts down on the
 * answer it just gave would): the tool ran, so its outcome is committed
 * rather than its row handed to another executor to run again.
 */
describe('an executor closed with abort after its handler returned', () => {
  const fixture = useExecutorKernel();
  const { start, runs, ended } = fixture;

  it('commits what the handler returned, and the tool runs once', async () => {
    let calls = 0;
    const tools = {
      pay: () => {
        calls++;
        return 'paid';
      },
    };
    let first: Executor | undefined;
    let closing: Promise<void> | undefined;
    first = start(tools, {
      leaseMs: 1000,
      onRan: () => {
        closing = first?.close({ abort: true });
      },
    });
    await first.ready;
    const created = await runs().create(
      scriptedRun('bypass', [
        { tool_calls: [{ name: 'pay', input: {} }] },
        { final: 'done', expect: 'paid' },
      ]),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    while (!closing) await new Promise((resolve) => setTimeout(resolve, 20));
    await closing;
    // Another executor of the same tool: a row handed back would run again on it.
    start(tools, { leaseMs: 1000 });
    expect(await ended(created.id, 8000)).toMatchObject({ state: 'completed' });
    expect(calls).toBe(1);
    const [row] = (await runs().run(created.id).tasks()).filter((task) => task.kind === 'tool');
    expect(row).toMatchObject({ state: 'succeeded', result: 'paid', attempts: 1 });
  });
});
