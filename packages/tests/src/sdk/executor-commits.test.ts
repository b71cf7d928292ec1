import { ToolError } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';
import { useExecutorKernel } from '../support/executor-kernel.js';
import { eventually, scriptedRun } from '../support/kernel.js';

/**
 * Commits the kernel refuses or cannot take now: each tool runs once, never again for it. The
 * cases wait out leases after their run ended: the outage (which stops its kernel) runs on a
 * kernel of its own beside the two others, which run one after the other (their 1 s leases
 * lapsed under a machine at load 30 when they ran side by side too).
 */
describe.concurrent('executor commits against a real kernel', () => {
  const fixture = useExecutorKernel();
  const { start, runs, ended } = fixture;

  it.sequential('commits a result or failure the kernel cannot take as a failure once, never running the tool again', async () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const handlers: Record<string, () => unknown> = {
      big_int: () => ({ count: 10n }),
      cyclic: () => cyclic,
      too_large: () => 'x'.repeat(1024 * 1024 + 16),
      // JSON, but nested past what the kernel reads: refused as input_too_deep.
      too_deep: () => Array.from({ length: 100 }).reduce<unknown>((inner) => [inner], 'core'),
      empty_code: () => {
        throw new ToolError('', 'a code nobody set');
      },
      odd_throw: () => {
        throw { message: 5 };
      },
      // JSON.stringify gives no text at all for these, where it throws for a BigInt or a cycle.
      a_function: () => () => 'called',
      a_symbol: () => Symbol('token'),
      to_json_nothing: () => ({ toJSON: () => undefined }),
    };
    const calls: Record<string, number> = {};
    const tools = Object.fromEntries(
      Object.entries(handlers).map(([name, handler]) => [
        name,
        () => {
          calls[name] = (calls[name] ?? 0) + 1;
          return handler();
        },
      ]),
    );
    // A short lease: a lapse-and-rerun would show within the test's wait.
    const executor = start(tools, { leaseMs: 1000 });
    await executor.ready;
    const created = await runs().create(
      scriptedRun('bypass', [
        { tool_calls: Object.keys(handlers).map((name) => ({ name, input: {} })) },
        { final: 'read them all' },
      ]),
    );
    expect(await ended(created.id, 8000)).toMatchObject({ state: 'completed' });
    // Two more leases' time: a row handed out again would have run by now.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(calls).toEqual({
      big_int: 1,
      cyclic: 1,
      too_large: 1,
      too_deep: 1,
      empty_code: 1,
      odd_throw: 1,
      a_function: 1,
      a_symbol: 1,
      to_json_nothing: 1,
    });
    const rows = Object.fromEntries(
      (await runs().run(created.id).tasks())
        .filter((task) => task.kind === 'tool')
        .map((task) => [task.tool_name, task]),
    );
    expect(rows.big_int).toMatchObject({ state: 'failed', attempts: 1 });
    expect(rows.big_int?.error).toMatchObject({ code: 'invalid_result' });
    expect(rows.big_int?.error?.detail).toMatch(/BigInt/);
    expect(rows.cyclic?.error).toMatchObject({ code: 'invalid_result' });
    expect(rows.cyclic?.error?.detail).toMatch(/circular/i);
    expect(rows.too_large).toMatchObject({ state: 'failed', attempts: 1 });
    expect(rows.too_large?.error?.code).toBe('result_too_large');
    expect(rows.too_deep?.error).toMatchObject({ code: 'invalid_result' });
    expect(rows.too_deep?.error?.detail).toMatch(/deeper than/);
    expect(rows.empty_code?.error).toMatchObject({ code: 'invalid_result' });
    expect(rows.empty_code?.error?.detail).toContain('a code nobody set');
    expect(rows.odd_throw?.error).toEqual({ code: 'tool_failed', detail: '5' });
    for (const name of ['a_function', 'a_symbol', 'to_json_nothing']) {
      expect(rows[name]).toMatchObject({ state: 'failed', attempts: 1 });
      expect(rows[name]?.error).toMatchObject({ code: 'invalid_result' });
      expect(rows[name]?.error?.detail).toMatch(/not JSON/);
    }
  });

  it.sequential('commits the row when onRan or onCommitted throws: the tool runs once', async () => {
    const ran: string[] = [];
    const errors: Error[] = [];
    const executor = start(
      {
        build: () => {
          ran.push('build');
          return 'built';
        },
      },
      {
        leaseMs: 1000,
        onRan: () => {
          throw new Error('the listener broke');
        },
        onCommitted: () => {
          throw new Error('the other listener broke');
        },
        onError: (error) => errors.push(error),
      },
    );
    await executor.ready;
    const created = await runs().create(
      scriptedRun('bypass', [
        { tool_calls: [{ name: 'build' }] },
        { final: 'done', expect: 'built' },
      ]),
    );
    expect(await ended(created.id, 8000)).toMatchObject({ state: 'completed' });
    // Two more leases' time: a row handed out again would have run by now.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(ran).toEqual(['build']);
    const [task] = await runs().run(created.id).tasks();
    expect(task).toMatchObject({ state: 'succeeded', result: 'built', attempts: 1 });
    expect(errors.map((error) => error.message)).toEqual([
      'the listener broke',
      'the other listener broke',
    ]);
  });
});

describe.concurrent('executor commits against a real kernel that goes away', () => {
  const fixture = useExecutorKernel();
  const { start, runs, ended } = fixture;

  it('retries a commit through a kernel outage until it lands: the tool runs once', async () => {
    const ran: number[] = [];
    const errors: Error[] = [];
    let restarted: Promise<void> | null = null;
    const executor = start(
      {
        build: async (_input, { attempt }) => {
          ran.push(attempt);
          if (ran.length === 1) {
            // The kernel goes away as the tool finishes and is back a second later, same port and file.
            await fixture.kernel.stop();
            restarted = new Promise((resolve) => setTimeout(resolve, 1000)).then(() =>
              fixture.kernel.start(),
            );
          }
          return 'built';
        },
      },
      {
        leaseMs: 4000,
        // A claim the drain sends into the outage fails (no row named); nothing about the row may.
        onError: (error, task) => {
          if (task) errors.push(error);
        },
      },
    );
    await executor.ready;
    const created = await runs().create(
      scriptedRun('bypass', [
        { tool_calls: [{ name: 'build' }] },
        { final: 'done', expect: 'built' },
      ]),
    );
    await eventually(() => ran.length > 0 && restarted !== null, { what: 'the outage' });
    await restarted;
    expect(await ended(created.id, 15_000)).toMatchObject({ state: 'completed' });
    // Past the lease: a commit that was dropped would have let the row run again by now.
    await new Promise((resolve) => setTimeout(resolve, 4500));
    expect(ran).toEqual([1]);
    const [task] = await runs().run(created.id).tasks();
    expect(task).toMatchObject({ state: 'succeeded', result: 'built', attempts: 1 });
    expect(errors).toEqual([]);
  });
});
