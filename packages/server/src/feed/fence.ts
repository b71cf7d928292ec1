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

/** The agent application of each run, read once: a run never changes application. */
class RunApplications {
  private readonly known = new Map<string, string | null>();

  constructor(private readonly store: Store) {}

  async of(runIds: readonly string[]): Promise<Map<string, string | null>> {
    const missing = [...new Set(runIds)].filter((id) => !this.known.has(id));
    if (missing.length > 0) {
      const rows = await applicationsOfRuns(this.store, missing);
      // A bounded cache: past its size it starts over rather than grow without end.
      if (this.known.size > 100_000) this.known.clear();
      for (const row of rows) this.known.set(row.id, row.agent_application_id);
    }
    return this.known;
  }
}

const applications = new WeakMap<Store, RunApplications>();

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
  let runs = applications.get(store);
  if (!runs) {
    runs = new RunApplications(store);
    applications.set(store, runs);
  }
  const lookup = runs;
  let queue: Promise<void> = Promise.resolve();
  return (items) => {
    queue = queue
      .then(async () => {
        const known = await lookup.of(items.map((item) => item.view.run_id));
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
