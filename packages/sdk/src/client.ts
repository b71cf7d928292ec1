import { type Call, createCall } from './call.js';
import { type Decision, isWaiting, toDecision } from './decisions.js';
import { type FeedOptions, FeedSubscription, type FeedTarget } from './feed.js';
import { type RequestOptions, splitRequest } from './internal/deadline.js';
import { createOperations } from './internal/operations.js';
import type { WebSocketConstructor } from './internal/socket.js';
import type { ConnectionOptions, OperationsClient } from './internal/transport.js';
import { type WatchOptions, watchDecisions } from './internal/watch-decisions.js';
import { Notifications } from './notifications.js';
import { Runs, type WorkspaceContext } from './runs.js';
import type { AuditRecord } from './views.js';

/** Options of {@link createClient}. */
export interface ClientOptions extends ConnectionOptions {
  /**
   * The WebSocket class for feeds. Defaults to the global one (browsers,
   * Node 22), else the `ws` package, loaded on demand in Node 20.
   */
  WebSocket?: WebSocketConstructor | undefined;
}

/** The most rows one page of decisions holds (the kernel's limit). */
const PAGE_MAX = 1000;

/** A page of waiting decisions (see {@link WorkspaceDecisions.page}). */
export interface DecisionPage {
  decisions: Decision[];
  /** How many wait in the workspace in all. */
  total: number;
  /** The cursor of the next page; null on the last one. */
  next_cursor: string | null;
}

/** Every decision of a workspace: list them now, or iterate them live across runs. */
export class WorkspaceDecisions implements AsyncIterable<Decision> {
  constructor(private readonly context: WorkspaceContext) {}

  /**
   * Lists every task of the workspace resting on a person, oldest first (at
   * most `limit` of them when given), reading as many pages as that takes.
   * @throws ForbiddenError for a non-member token; UnauthorizedError.
   */
  async list(options: { limit?: number } & RequestOptions = {}): Promise<Decision[]> {
    const { limit, ...request } = options;
    const listed: Decision[] = [];
    let cursor: string | undefined;
    for (;;) {
      const wanted = limit === undefined ? PAGE_MAX : Math.min(PAGE_MAX, limit - listed.length);
      const page = await this.page({ ...request, limit: wanted, ...(cursor ? { cursor } : {}) });
      listed.push(...page.decisions);
      if (page.next_cursor === null || (limit !== undefined && listed.length >= limit)) {
        return listed;
      }
      cursor = page.next_cursor;
    }
  }

  /**
   * One page of the decisions waiting in the workspace, oldest or newest
   * first, with how many wait in all; pass `next_cursor` back as `cursor`
   * for the next page (null on the last one).
   * @throws ForbiddenError for a non-member token; ValidationError for a foreign cursor.
   */
  async page(
    options: { limit?: number; order?: 'oldest' | 'newest'; cursor?: string } & RequestOptions = {},
  ): Promise<DecisionPage> {
    const [query, request] = splitRequest(options);
    const page = await this.context.operations.decisions.list.query(
      { workspace_id: this.context.workspaceId, ...query },
      request,
    );
    return {
      decisions: page.decisions.map((task) => toDecision(this.context, task)),
      total: page.total,
      next_cursor: page.next_cursor,
    };
  }

  /**
   * One row as a decision when it rests on a person, else null (decided,
   * running, or authored with a resolution token).
   * @throws NotFoundError when the run has no such row; ForbiddenError.
   */
  async get(
    runId: string,
    taskKey: string,
    request: RequestOptions = {},
  ): Promise<Decision | null> {
    const task = await this.context.operations.tasks.get.query(
      { workspace_id: this.context.workspaceId, run_id: runId, task_key: taskKey },
      request,
    );
    // A question authored through the tasks door is its token holder's alone.
    const authoredQuestion = task.origin === 'author' && task.kind === 'ask';
    return isWaiting(task) && !authoredQuestion ? toDecision(this.context, task) : null;
  }

  /**
   * Yields each decision once as it starts waiting, across all runs: those
   * waiting now, then each new one as it parks; never ends by itself. Ends
   * at once when the loop breaks, `return()` is called or `signal` aborts.
   * It follows the feed from its head, so a store whose retention pruned
   * events is watched as any other. A kernel that restarts, or does not
   * answer for a while, is waited out: its reads are tried again.
   * @throws ForbiddenError for a non-member token; UnauthorizedError.
   */
  watch(options: WatchOptions = {}): AsyncIterableIterator<Decision> {
    return watchDecisions(
      this.context,
      {
        openFeed: (feedOptions) => new FeedSubscription(this.context.feedTarget(null), feedOptions),
        read: async (signal) => ({
          tasks: (await this.list({ signal })).map((decision) => decision.task),
          ended: false,
        }),
      },
      options,
    );
  }

  /** The same as {@link watch} without a signal: `for await (const d of workspace.decisions)`. */
  [Symbol.asyncIterator](): AsyncIterableIterator<Decision> {
    return this.watch();
  }
}

/** One workspace: its runs, its decisions and its lifecycle feed. */
export class Workspace {
  /** The workspace's runs. */
  readonly runs: Runs;
  /** Every decision waiting in the workspace. */
  readonly decisions: WorkspaceDecisions;
  /** The workspace's notification outbox (a member token). */
  readonly notifications: Notifications;
  private readonly context: WorkspaceContext;

  constructor(
    operations: OperationsClient,
    options: ClientOptions,
    /** The workspace's id. */
    readonly id: string,
  ) {
    this.context = {
      operations,
      workspaceId: id,
      feedTarget: (runId): FeedTarget => ({
        url: options.url,
        token: options.token,
        workspaceId: id,
        runId,
        WebSocket: options.WebSocket,
        timeoutMs: options.timeoutMs,
        check: async () => {
          if (runId) await operations.runs.get.query({ workspace_id: id, run_id: runId });
          else await operations.runs.list.query({ workspace_id: id, limit: 1 });
        },
      }),
    };
    this.runs = new Runs(this.context);
    this.decisions = new WorkspaceDecisions(this.context);
    this.notifications = new Notifications(this.context);
  }

  /**
   * Who this client's token is: its credential, kind, application, role (a
   * member's `admin` or `approver`; null for other kinds), and the principal
   * (`member:cred_…`) its decisions are recorded under.
   * @throws UnauthorizedError; ForbiddenError for an executor token.
   */
  self(request: RequestOptions = {}): Promise<{
    credential_id: string;
    kind: 'agent' | 'executor' | 'member';
    agent_application_id: string | null;
    role: 'admin' | 'approver' | null;
    principal: string;
  }> {
    return this.context.operations.credentials.self.query({ workspace_id: this.id }, request);
  }

  /**
   * One page of the workspace's decisions (rules, people, clocks, hooks, the
   * kernel) from its audit trail: those since `since` (epoch ms), after the
   * sequence number `after` and before `before`, oldest first or, with
   * `order: 'newest'`, newest first; at most `limit` (1000 by default) and
   * about 4 MiB. A short page is not the end: page on from the last `seq`
   * (`after` it oldest first, `before` it newest first) until an empty page.
   * @throws ForbiddenError for a non-member token; UnauthorizedError.
   */
  async audit(
    options: {
      since?: number;
      after?: number;
      before?: number;
      order?: 'oldest' | 'newest';
      limit?: number;
    } & RequestOptions = {},
  ): Promise<AuditRecord[]> {
    const [query, request] = splitRequest(options);
    const { records } = await this.context.operations.audit.export.query(
      { workspace_id: this.id, ...query },
      request,
    );
    return records;
  }

  /**
   * The workspace's lifecycle feed (every run), live over WebSocket; it
   * reconnects by itself and resumes after the last event it received.
   * @throws ValidationError `invalid_input` for an `after` that is no sequence number or
   *   `'latest'`, or a high-water mark that is not a whole number of 1 or more.
   */
  feed(options: FeedOptions = {}): FeedSubscription {
    return new FeedSubscription(this.context.feedTarget(null), options);
  }
}

/** A client of one kernel with one token. */
export interface Client {
  /** A workspace by id (no request is made until you use it). */
  workspace(id: string): Workspace;
  /**
   * Calls any operation of the kernel by its dotted name, typed from its
   * contract: `client.call('runs.stop', { workspace_id, run_id })`.
   * @throws AirlockError (a subclass per failure mode); ConnectionError.
   */
  call: Call;
}

/**
 * Makes a client for a kernel. Works in Node 20 and in browsers.
 *
 * ```ts
 * const client = createClient({ url: 'http://127.0.0.1:4820', token: process.env.AIRLOCK_TOKEN! });
 * const run = await client.workspace(workspaceId).runs.create({ ... });
 * ```
 */
export function createClient(options: ClientOptions): Client {
  const operations = createOperations(options);
  return { workspace: (id) => new Workspace(operations, options, id), call: createCall(options) };
}
