import { createClient } from '@airlock/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedRun, startTestKernel, type TestKernel } from '../support/kernel.js';

/** About how many bytes of text the kernel puts in one page of a run's rows. */
const PAGE_BYTES = 8 * 1024 * 1024;
/** An input that, counted twice as a row's view carries it, is about five-eighths of a page. */
const big = (n: number) => ({ text: String(n).repeat(Math.floor((5 * PAGE_BYTES) / 16)) });

/*
 * The kernel ends a page of a run's rows at about 8 MiB of text even when no limit is named;
 * run.tasks() read one page, so a run of large calls lost every row past its first page. It
 * follows next_cursor until the last page now.
 */
describe("a run's rows past a page's bytes through the SDK", () => {
  let kernel: TestKernel;
  beforeAll(async () => {
    kernel = await startTestKernel({ bodyLimit: 32 * 1024 * 1024 });
  });
  afterAll(async () => {
    await kernel?.close();
  });

  it('run.tasks() answers every row once, in order', async () => {
    const runs = createClient({ url: kernel.url, token: kernel.workspace.tokens.member }).workspace(
      kernel.workspace.id,
    ).runs;
    const calls = [big(1), { text: 'small' }, big(3), { text: 'small' }, big(5)].map((input) => ({
      name: 'write',
      input,
    }));
    const created = await runs.create(
      scriptedRun('ask', [{ tool_calls: calls }, { final: 'done' }]),
    );
    const run = runs.run(created.id);
    const first = await run.taskPage();
    expect(first.tasks.map((task) => task.key)).toEqual(['t1', 't2']);
    expect(first.next_cursor).not.toBeNull();
    const tasks = await run.tasks();
    expect(tasks.map((task) => task.key)).toEqual(['t1', 't2', 't3', 't4', 't5']);
    expect(tasks.map((task) => (task.tool_input as { text: string }).text.length)).toEqual(
      calls.map((call) => call.input.text.length),
    );
  }, 120_000);
});
