import { AirlockError } from '../errors.js';
import { applicationsOfRuns } from '../store/runs.js';
import type { Store } from '../store/store.js';
import type { FeedItem } from './feed-item.js';

/**
 * Whose runs a subscriber sees: one agent application's runs, plus the runs
 * of no application when `unowned` (an executor may claim those, an agent
 * credential may not read them). No fence (null) is the whole workspace.
 */
export interface ApplicationFence {
  applicationId: string;
  unowned: boolean;
}

/** True when a run of this application is inside the fence. */
export function fencedIn(fence: ApplicationFence, runApplication: string | null): boolean {
  return runApplication === null ? fence.unowned : runApplication === fence.applicationId;
}

/** Where a feed subscriber's events go, and its refusal when retention pruned what it would read. */
export interface FeedSink {
  deliver(items: readonly FeedItem[]): void;
  refuse(refusal: AirlockError, after: number): void;
  /** Resolves once what was delivered has been sent on (see the hub's SubscribeOptions). */
  drained?(): Promise<void>;
}

/**
 * Wraps a feed subscriber's sink so it receives only the events of runs
 * inside its fence, in the same order (batches wait for each other while the
 * runs' applications are looked up), and its refusal after every batch handed
 * over before it. Without a fence, the sink is unchanged.
 */
export function fencedSink(store: Store, fence: ApplicationFence | null, sink: FeedSink): FeedSink {
  if (!fence) return sink;
  let queue: Promise<void> = Promise.resolve();
  let failed = false;
  return {
    deliver(items) {
      queue = queue
        .then(async () => {
          if (failed) return;
          // A run's application is read once for the whole process (see applicationsOfRuns).
          const known = await applicationsOfRuns(
            store,
            items.map((item) => item.view.run_id),
          );
          // An event of no run (a change of policy) is the workspace's: no fenced subscriber reads it.
          const inside = items.filter(
            (item) =>
              item.view.run_id !== '' && fencedIn(fence, known.get(item.view.run_id) ?? null),
          );
          if (inside.length > 0) sink.deliver(inside);
        })
        .catch(() => {
          // A failed lookup ends this feed where the batch began (nothing after it is sent, so no
          // event is skipped): the client resumes from its last event. No other run reaches it.
          if (failed) return;
          failed = true;
          const before = Math.min(...items.map((item) => item.row.seq)) - 1;
          sink.refuse(
            new AirlockError(
              'unavailable',
              'the feed could not read whose runs its events belong to; resume after your last event',
            ),
            before,
          );
        });
    },
    refuse(refusal, after) {
      queue = queue.then(() => {
        if (!failed) sink.refuse(refusal, after);
      });
    },
    // What was delivered reaches the sink only once its runs' applications are looked up.
    drained: () => queue.then(() => sink.drained?.()),
  };
}
