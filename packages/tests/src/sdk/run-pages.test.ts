import { createClient, type RunView } from '@airlock/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedRun, startTestKernel, type TestKernel } from '../support/kernel.js';

describe("a workspace's runs and a run's rows a page at a time through the SDK", () => {
  let kernel: TestKernel;
  // The kernel's clock, moved by hand: the runs are made in two milliseconds, tied in each.
  let now = Date.now();
  const made: string[] = [];
  beforeAll(async () => {
    kernel = await startTestKernel({ clock: () => now });
    const runs = createClient({ url: kernel.url, token: kernel.workspace.tokens.member }).workspace(
      kernel.workspace.id,
    ).runs;
    for (let n = 0; n < 5; n += 1) {
      if (n === 3) now += 1;
      made.push((await runs.create(scriptedRun('bypass', [{ final: 'done' }]))).id);
    }
  });
  afterAll(async () => {
    await kernel?.close();
  });

  const workspace = () =>
    createClient({ url: kernel.url, token: kernel.workspace.tokens.member }).workspace(
      kernel.workspace.id,
    );

  it('hands the next page cursor, and reads every run with all()', async () => {
    const runs = workspace().runs;
    const whole = await runs.list({ limit: 1000 });
    expect(whole.map((run) => run.id).sort()).toEqual([...made].sort());
    const first = await runs.page({ limit: 2 });
    expect(first.runs.map((run) => run.id)).toEqual(whole.slice(0, 2).map((run) => run.id));
    expect(first.next_cursor).not.toBeNull();
    const second = await runs.page({ limit: 3, cursor: first.next_cursor! });
    expect(second.runs.map((run) => run.id)).toEqual(whole.slice(2).map((run) => run.id));
    expect(second.next_cursor).toBeNull();
    const walked: RunView[] = [];
    for await (const run of runs.all({ pageSize: 2 })) walked.push(run);
    expect(walked.map((run) => run.id)).toEqual(whole.map((run) => run.id));
    const completed: string[] = [];
    for await (const run of runs.all({ state: 'completed', pageSize: 1 })) {
      completed.push(run.id);
      if (completed.length === 2) break;
    }
    expect(completed).toEqual(whole.slice(0, 2).map((run) => run.id));
  });

  it("pages a run's rows, and refuses a cursor of another list as a ValidationError", async () => {
    const runs = workspace().runs;
    const created = await runs.create(
      scriptedRun('ask', [
        { tool_calls: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] },
        { final: 'done' },
      ]),
    );
    const run = runs.run(created.id);
    const first = await run.taskPage({ limit: 2 });
    expect(first.tasks.map((task) => task.key)).toEqual(['t1', 't2']);
    const rest = await run.taskPage({ limit: 2, cursor: first.next_cursor! });
    expect(rest.tasks.map((task) => task.key)).toEqual(['t3']);
    expect(rest.next_cursor).toBeNull();
    expect((await run.tasks()).map((task) => task.key)).toEqual(['t1', 't2', 't3']);
    const runsCursor = (await runs.page({ limit: 1 })).next_cursor!;
    await expect(run.taskPage({ cursor: runsCursor })).rejects.toMatchObject({
      name: 'ValidationError',
      code: 'invalid_input',
    });
  });
});
