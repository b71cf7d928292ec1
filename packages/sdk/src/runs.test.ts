import { describe, expect, it } from 'vitest';
import { isServerError, ValidationError } from './errors.js';
import { RunHandle, Runs, type WorkspaceContext } from './runs.js';
import type { FeedEvent } from './views.js';

const event = (seq: number) =>
  ({
    seq,
    run_id: 'run_1',
    task_key: null,
    type: 'run.attention_cleared',
    data: {},
    principal: null,
    created_at: 0,
  }) as FeedEvent;

/** A run handle over a log of `count` events whose kernel answers pages of at most `pageSize`. */
function runOver(count: number, pageSize: number, options: { nextAfter?: boolean } = {}) {
  const asked: { after: number; limit: number }[] = [];
  const query = async (input: { after?: number; limit?: number }) => {
    const after = input.after ?? 0;
    const limit = input.limit ?? 100;
    asked.push({ after, limit });
    const events = Array.from({ length: count }, (_, n) => event(n + 1))
      .filter((e) => e.seq > after)
      .slice(0, Math.min(limit, pageSize));
    const more = (events.at(-1)?.seq ?? count) < count;
    return options.nextAfter === false
      ? { events }
      : { events, next_after: more ? events.at(-1)!.seq : null };
  };
  const context = {
    operations: { runs: { events: { query } } },
    workspaceId: 'ws_1',
  } as unknown as WorkspaceContext;
  return { run: new RunHandle(context, 'run_1'), asked };
}

describe("a run's events", () => {
  it('pages on past a page the kernel cut short by bytes, to the end of the log', async () => {
    const { run, asked } = runOver(7, 3);
    const events = await run.events();
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(asked.map((page) => page.after)).toEqual([0, 3, 6]);
  });

  it('stops at the limit, paging on while pages come back short of it', async () => {
    const { run } = runOver(20, 3);
    expect((await run.events({ after: 2, limit: 5 })).map((e) => e.seq)).toEqual([3, 4, 5, 6, 7]);
  });

  it('reads a kernel without next_after as before: a short page is its end', async () => {
    const { run, asked } = runOver(5, 1000, { nextAfter: false });
    expect((await run.events({ limit: 3 })).map((e) => e.seq)).toEqual([1, 2, 3]);
    expect((await run.events()).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(asked.at(-1)).toEqual({ after: 0, limit: 1000 });
  });

  it('stops with a ServerError when a page says to go on from where it started', async () => {
    const query = async () => ({ events: [event(1)], next_after: 0 });
    const context = { operations: { runs: { events: { query } } } } as unknown as WorkspaceContext;
    const failure = await new RunHandle(context, 'run_1').events().catch((error) => error);
    expect(isServerError(failure)).toBe(true);
    expect((failure as Error).message).toContain('not past it');
  });

  it('refuses a limit that is not a whole number above 0, asking nothing', async () => {
    const { run, asked } = runOver(5, 3);
    for (const limit of [0, -1, 1.5, Number.NaN]) {
      await expect(run.events({ limit })).rejects.toBeInstanceOf(ValidationError);
    }
    expect(asked).toEqual([]);
  });
});

describe("a workspace's runs, page after page", () => {
  const view = (id: string) => ({ id }) as unknown as import('./views.js').RunView;

  it('stops with a ServerError when a page hands back the cursor it was read with', async () => {
    const query = async (input: { cursor?: string }) => ({
      runs: [view(input.cursor ?? 'first')],
      next_cursor: 'same',
    });
    const context = {
      operations: { runs: { list: { query } } },
      workspaceId: 'ws_1',
    } as unknown as WorkspaceContext;
    const seen: string[] = [];
    const failure = await (async () => {
      for await (const run of new Runs(context).all()) seen.push(run.id);
    })().catch((error) => error);
    expect(seen).toEqual(['first', 'same']);
    expect(isServerError(failure)).toBe(true);
  });

  it('ends at a page without next_cursor (a kernel older than paging)', async () => {
    const query = async () => ({ runs: [view('a'), view('b')] });
    const context = { operations: { runs: { list: { query } } } } as unknown as WorkspaceContext;
    const seen: string[] = [];
    for await (const run of new Runs(context).all()) seen.push(run.id);
    expect(seen).toEqual(['a', 'b']);
    expect((await new Runs(context).page()).next_cursor).toBeNull();
  });
});

describe("a run's task rows, page after page", () => {
  const task = (key: string) => ({ key }) as unknown as import('./views.js').TaskView;

  it('reads every page the kernel cut short by bytes, with no limit asked', async () => {
    const asked: (string | undefined)[] = [];
    const pages: Record<string, { tasks: ReturnType<typeof task>[]; next_cursor: string | null }> =
      {
        first: { tasks: [task('t1'), task('t2')], next_cursor: 'c2' },
        c2: { tasks: [task('t3')], next_cursor: 'c3' },
        c3: { tasks: [task('t4')], next_cursor: null },
      };
    const query = async (input: { cursor?: string; limit?: number }) => {
      asked.push(input.cursor);
      expect(input.limit).toBeUndefined();
      return pages[input.cursor ?? 'first']!;
    };
    const context = { operations: { tasks: { list: { query } } } } as unknown as WorkspaceContext;
    const tasks = await new RunHandle(context, 'run_1').tasks();
    expect(tasks.map((row) => row.key)).toEqual(['t1', 't2', 't3', 't4']);
    expect(asked).toEqual([undefined, 'c2', 'c3']);
  });

  it('stops with a ServerError when a page hands back the cursor it was read with', async () => {
    const query = async () => ({ tasks: [task('t1')], next_cursor: 'same' });
    const context = { operations: { tasks: { list: { query } } } } as unknown as WorkspaceContext;
    const failure = await new RunHandle(context, 'run_1').tasks().catch((error) => error);
    expect(isServerError(failure)).toBe(true);
  });
});
