import type { Decision, DecisionContext } from './decisions.js';
import { type FeedOptions, FeedSubscription, type FeedTarget } from './feed.js';
import { readCursorPages } from './internal/cursor-pages.js';
import { type RequestOptions, splitRequest } from './internal/deadline.js';
import { readEventPages } from './internal/event-pages.js';
import { type WatchOptions, watchDecisions } from './internal/watch-decisions.js';
import {
  type CreateRunInput,
  type FeedEvent,
  RUN_END_STATES,
  type RunView,
  type TaskView,
} from './views.js';

/** A page of a workspace's runs (see {@link Runs.page}). */
export interface RunPage {
  runs: RunView[];
  /** Pass as `cursor` for the next page; null on the last one. */
  next_cursor: string | null;
}

/** A page of a run's task rows (see {@link RunHandle.taskPage}). */
export interface TaskPage {
  tasks: TaskView[];
  /** Pass as `cursor` for the next page; null on the last one. */
  next_cursor: string | null;
}

/** What a workspace's handles share: the operations client, the workspace, and how to open a feed. */
export interface WorkspaceContext extends DecisionContext {
  feedTarget(runId: string | null): FeedTarget;
}

/** Decisions to iterate (`for await`), or to {@link DecisionStream.watch | watch} with a signal. */
export interface DecisionStream extends AsyncIterable<Decision> {
  /**
   * The decisions as a watcher that ends at once when its loop breaks,
   * `return()` is called or `signal` aborts (a waiting `next()` resolves as done).
   */
  watch(options?: WatchOptions): AsyncIterableIterator<Decision>;
}

/** One run of a workspace: read it, follow it, stop it, and resolve what it waits on. */
export class RunHandle {
  /**
   * Every task of this run resting on a person, as a {@link Decision}: those
   * waiting now, then each new one as it parks. The loop ends when the run
   * ends; `run.decisions.watch({ signal })` also ends when the signal aborts.
   * It follows the feed from its head, so a run whose first events retention
   * pruned is watched as any other. A kernel that restarts, or does not
   * answer for a while, is waited out: its reads are tried again.
   *
   * ```ts
   * for await (const d of run.decisions) d.isAsk() ? await d.answer({ content: 'Now' }) : await d.approve();
   * ```
   */
  readonly decisions: DecisionStream;

  constructor(
    private readonly context: WorkspaceContext,
    /** The run's id. */
    readonly id: string,
  ) {
    const watch = (options: WatchOptions = {}) =>
      watchDecisions(
        context,
        {
          openFeed: (feedOptions) => this.feed(feedOptions),
          read: async (signal) => {
            const [run, tasks] = await Promise.all([this.get({ signal }), this.tasks({ signal })]);
            return { tasks, ended: RUN_END_STATES.includes(run.state) };
          },
        },
        options,
      );
    this.decisions = { watch, [Symbol.asyncIterator]: () => watch() };
  }

  private get address() {
    return { workspace_id: this.context.workspaceId, run_id: this.id };
  }

  /**
   * Reads the run: its state, frozen configuration and attention.
   * @throws NotFoundError, ForbiddenError, UnauthorizedError; DeadlineExceededError.
   */
  get(request: RequestOptions = {}): Promise<RunView> {
    return this.context.operations.runs.get.query(this.address, request);
  }

  /**
   * Lists every task row of the run in order, reading as many pages as that takes (the kernel
   * ends a page once its rows pass about 8 MiB of text).
   * @throws NotFoundError, ForbiddenError, UnauthorizedError; DeadlineExceededError;
   *   ServerError when a page hands back the cursor it was read with.
   */
  async tasks(request: RequestOptions = {}): Promise<TaskView[]> {
    const tasks: TaskView[] = [];
    const pages = readCursorPages(async (cursor) => {
      const page = await this.context.operations.tasks.list.query(
        cursor === undefined ? this.address : { ...this.address, cursor },
        request,
      );
      return { rows: page.tasks, next_cursor: page.next_cursor };
    });
    for await (const task of pages) tasks.push(task);
    return tasks;
  }

  /**
   * One page of the run's task rows in planting order: at most `limit` (1 to
   * 1000; every row after the cursor when absent), fewer once their text passes
   * about 8 MiB (never none); pass `next_cursor` back as `cursor` for the next
   * page (null on the last one).
   * @throws ValidationError for a cursor of another list or run; NotFoundError, ForbiddenError.
   */
  async taskPage(
    options: { limit?: number; cursor?: string } & RequestOptions = {},
  ): Promise<TaskPage> {
    const [query, request] = splitRequest(options);
    const page = await this.context.operations.tasks.list.query(
      { ...this.address, ...query },
      request,
    );
    return { tasks: page.tasks, next_cursor: page.next_cursor ?? null };
  }

  /**
   * Reads one task row.
   * @throws NotFoundError when the run has no such task.
   */
  task(key: string, request: RequestOptions = {}): Promise<TaskView> {
    return this.context.operations.tasks.get.query({ ...this.address, task_key: key }, request);
  }

  /**
   * Reads the run's lifecycle events after a sequence number (`after`, default
   * 0), in order: every one to the end of its log, or the first `limit` of
   * them. It reads as many pages as that takes (the kernel bounds a page by
   * bytes too), so fewer than `limit` events means the log ended there.
   * @throws FeedResyncError when retention pruned events of the run after `after`
   *   (its detail names the position to resume after); NotFoundError, ForbiddenError, UnauthorizedError.
   */
  async events(
    options: { after?: number; limit?: number } & RequestOptions = {},
  ): Promise<FeedEvent[]> {
    const [query, request] = splitRequest(options);
    return readEventPages(
      (page) => this.context.operations.runs.events.query({ ...this.address, ...page }, request),
      query,
    );
  }

  /**
   * The run's lifecycle feed, live over WebSocket: an async iterator that
   * reconnects by itself and resumes after the last event it received.
   * @throws ValidationError `invalid_input` for an `after` that is no sequence number or
   *   `'latest'`, or a high-water mark that is not a whole number of 1 or more.
   */
  feed(options: FeedOptions = {}): FeedSubscription {
    return new FeedSubscription(this.context.feedTarget(this.id), options);
  }

  /**
   * Stops the run: unstarted rows, parked ones included, are canceled. A run
   * that already ended is answered as it is, unchanged (a stop may be retried).
   * @throws NotFoundError run_not_found.
   */
  stop(request: RequestOptions = {}): Promise<RunView> {
    return this.context.operations.runs.stop.mutate(this.address, request);
  }

  /**
   * Abandons a run resting on a failure hold: it fails and its unstarted rows are canceled.
   * @throws ConflictError when it already ended; ForbiddenError for a non-member token.
   */
  abandon(request: RequestOptions = {}): Promise<RunView> {
    return this.context.operations.runs.abandon.mutate(this.address, request);
  }

  /**
   * Appends an author row through the tasks door (member plane).
   * @throws ConflictError run_not_running; ForbiddenError for a non-member token.
   */
  appendTask(
    input: { tool_name: string; tool_input?: unknown; on_failure?: 'continue' | 'hold' },
    request: RequestOptions = {},
  ): Promise<TaskView> {
    return this.context.operations.tasks.append.mutate({ ...this.address, ...input }, request);
  }

  /**
   * Retries a row holding the run (on_failure hold): a question asks again, a
   * refused call crosses the approval stage again, an expired park parks
   * again, anything else runs again.
   * @throws ConflictError task_not_waiting when the row does not hold the run,
   *   retry_refused when it cannot be retried as it stands (an invalid question,
   *   a call the rules refuse again): the hold stays.
   */
  retryTask(key: string, request: RequestOptions = {}): Promise<TaskView> {
    return this.context.operations.decisions.retry.mutate(
      { ...this.address, task_key: key },
      request,
    );
  }
}

/** The runs of one workspace. */
export class Runs {
  constructor(private readonly context: WorkspaceContext) {}

  /**
   * Creates a standalone run with its own approval mode, rules and provider.
   * @throws ValidationError with every problem in the rules or the input; ForbiddenError.
   */
  create(input: CreateRunInput, request: RequestOptions = {}): Promise<RunView> {
    return this.context.operations.runs.create.mutate(
      { ...input, workspace_id: this.context.workspaceId },
      request,
    );
  }

  /**
   * Lists the workspace's runs, newest first: one page, at most `limit` (100
   * unless given, at most 1000). {@link page} hands the next page's cursor;
   * {@link all} reads every run.
   * @throws ForbiddenError, UnauthorizedError.
   */
  async list(
    options: { state?: RunView['state']; limit?: number } & RequestOptions = {},
  ): Promise<RunView[]> {
    return (await this.page(options)).runs;
  }

  /**
   * One page of the workspace's runs, newest first (runs created in the same
   * millisecond by id); pass `next_cursor` back as `cursor` for the next page
   * (null on the last one).
   * @throws ValidationError for a cursor the runs list did not make; ForbiddenError.
   */
  async page(
    options: { state?: RunView['state']; limit?: number; cursor?: string } & RequestOptions = {},
  ): Promise<RunPage> {
    const [query, request] = splitRequest(options);
    const page = await this.context.operations.runs.list.query(
      { workspace_id: this.context.workspaceId, ...query },
      request,
    );
    return { runs: page.runs, next_cursor: page.next_cursor ?? null };
  }

  /**
   * Every run of the workspace (of one state when given), newest first, read
   * a page of `pageSize` (1000 unless given) at a time as the loop asks:
   * `for await (const run of runs.all({ state: 'running' }))`.
   * @throws ValidationError for a pageSize out of 1 to 1000; ForbiddenError;
   *   ServerError when a page hands back the cursor it was read with.
   */
  all(
    options: { state?: RunView['state']; pageSize?: number } & RequestOptions = {},
  ): AsyncGenerator<RunView, void, undefined> {
    const { pageSize = 1000, ...rest } = options;
    return readCursorPages(async (cursor) => {
      const page = await this.page({ ...rest, limit: pageSize, ...(cursor ? { cursor } : {}) });
      return { rows: page.runs, next_cursor: page.next_cursor };
    });
  }

  /** A handle on one run (no request is made until you use it). */
  run(id: string): RunHandle {
    return new RunHandle(this.context, id);
  }
}
