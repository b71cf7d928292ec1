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

/**
 * Wraps a feed subscriber's delivery so it receives only the events of runs
 * inside its fence, in the same order (batches wait for each other while the
 * runs' applications are looked up). Without a fence, delivery is unchanged.
 */
export function fencedDelivery(
  store: Store,
  fence: ApplicationFence | null,
  deliver: (items: readonly FeedItem[]) => void,
): (items: readonly FeedItem[]) => void {
  if (!fence) return deliver;
  let queue: Promise<void> = Promise.resolve();
  return (items) => {
    queue = queue
      .then(async () => {
        // A run's application is read once for the whole process (see applicationsOfRuns).
        const known = await applicationsOfRuns(
          store,
          items.map((item) => item.view.run_id),
        );
        // An event of no run (a change of policy) is the workspace's: no fenced subscriber reads it.
        const inside = items.filter(
          (item) => item.view.run_id !== '' && fencedIn(fence, known.get(item.view.run_id) ?? null),
        );
        if (inside.length > 0) deliver(inside);
      })
      .catch(() => {
        // A failed lookup drops the batch for this subscriber only; it never reaches another run.
      });
  };
}
