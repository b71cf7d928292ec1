import type { Logger } from 'pino';
import { type EventView, eventView } from '../kernel/views.js';
import type { Store } from '../store/store.js';

/** One feed subscriber: a cursor and where its events go. */
export interface FeedSubscription {
  close(): void;
}

/**
 * Whose runs a subscriber sees: every run of the workspace (`null`), or one
 * agent application's runs, plus the runs of no application when `unowned`
 * (an executor may claim those, an agent credential may not read them).
 */
export interface ApplicationFence {
  applicationId: string;
  unowned: boolean;
}

interface Subscriber {
  workspaceId: string;
  runId: string | null;
  fence: ApplicationFence | null;
  cursor: number;
  send(event: EventView): void;
  busy: boolean;
  again: boolean;
  closed: boolean;
}

const PAGE = 500;

/** True when a run of this application is inside the fence. */
export function fencedIn(fence: ApplicationFence, runApplication: string | null): boolean {
  return runApplication === null ? fence.unowned : runApplication === fence.applicationId;
}

/**
 * Fans committed events out to feed subscribers. Each subscriber reads the
 * durable log from its own cursor, so a client resuming from a sequence
 * number misses nothing; wakes come from this process's commits, from
 * PostgreSQL NOTIFY for other kernels, and from a slow poll as a safety net.
 */
export class FeedHub {
  private readonly subscribers = new Set<Subscriber>();
  private stopListening: (() => Promise<void>) | undefined;
  private unsubscribe: (() => void) | undefined;
  private poll: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
  ) {}

  /** Starts listening for commits. */
  async start(): Promise<void> {
    this.unsubscribe = this.store.onCommitted((events) => {
      for (const workspaceId of new Set(events.map((e) => e.workspace_id))) this.wake(workspaceId);
    });
    this.stopListening = await this.store.listen((workspaceId) => this.wake(workspaceId));
    this.poll = setInterval(() => {
      for (const workspaceId of new Set([...this.subscribers].map((s) => s.workspaceId))) {
        this.wake(workspaceId);
      }
    }, 1000);
    this.poll.unref();
  }

  /** Subscribes to a workspace's events (optionally one run's) after a sequence number. */
  subscribe(options: {
    workspaceId: string;
    runId?: string | null;
    /** Only these runs' events; every run of the workspace when absent. */
    fence?: ApplicationFence | null;
    after: number;
    send(event: EventView): void;
  }): FeedSubscription {
    const subscriber: Subscriber = {
      workspaceId: options.workspaceId,
      runId: options.runId ?? null,
      fence: options.fence ?? null,
      cursor: options.after,
      send: options.send,
      busy: false,
      again: false,
      closed: false,
    };
    this.subscribers.add(subscriber);
    void this.pump(subscriber);
    return {
      close: () => {
        subscriber.closed = true;
        this.subscribers.delete(subscriber);
      },
    };
  }

  private wake(workspaceId: string): void {
    for (const subscriber of this.subscribers) {
      if (subscriber.workspaceId === workspaceId) void this.pump(subscriber);
    }
  }

  private async pump(subscriber: Subscriber): Promise<void> {
    if (subscriber.busy) {
      subscriber.again = true;
      return;
    }
    subscriber.busy = true;
    try {
      do {
        subscriber.again = false;
        const fence = subscriber.fence;
        const rows = await this.store.db
          .selectFrom('run_events')
          .leftJoin('runs', 'runs.id', 'run_events.run_id')
          .selectAll('run_events')
          .select('runs.agent_application_id as run_application')
          .where('run_events.workspace_id', '=', subscriber.workspaceId)
          .where('run_events.seq', '>', subscriber.cursor)
          .$if(subscriber.runId !== null, (qb) =>
            qb.where('run_events.run_id', '=', subscriber.runId!),
          )
          .orderBy('run_events.seq')
          .limit(PAGE)
          .execute();
        for (const { run_application, ...row } of rows) {
          if (subscriber.closed) return;
          // The cursor passes fenced-off events too, so the next page starts after them.
          subscriber.cursor = row.seq;
          if (fence && !fencedIn(fence, run_application ?? null)) continue;
          subscriber.send(eventView(row));
        }
        if (rows.length === PAGE) subscriber.again = true;
      } while (subscriber.again && !subscriber.closed);
    } catch (error) {
      if (!subscriber.closed) this.logger.warn({ err: error }, 'feed read failed');
    } finally {
      subscriber.busy = false;
    }
  }

  /** Stops listening and drops every subscriber. */
  async stop(): Promise<void> {
    if (this.poll) clearInterval(this.poll);
    this.unsubscribe?.();
    for (const subscriber of this.subscribers) subscriber.closed = true;
    this.subscribers.clear();
    await this.stopListening?.();
  }
}
