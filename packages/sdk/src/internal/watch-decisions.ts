import { type Decision, type DecisionContext, isWaiting, toDecision } from '../decisions.js';
import type { FeedSubscription } from '../feed.js';
import type { TaskView } from '../views.js';

/** What a decision watcher reads: the waiting rows now, and a feed that says when to look again. */
export interface DecisionSource {
  /** The rows resting on a person now, and whether the watched scope has ended. */
  read(): Promise<{ tasks: TaskView[]; ended: boolean }>;
  /** A live feed of the watched scope's events. */
  openFeed(): FeedSubscription;
}

/**
 * One waiting spell of a row: a row parked again (retried after it expired)
 * gets a fresh clock, so it is a new decision even if no read saw it leave.
 */
function spell(task: TaskView): string {
  return `${task.run_id}/${task.key}/${task.state}/${task.deadline_at ?? ''}`;
}

// Events that cannot change what rests on a person.
const QUIET = new Set(['run.model_read', 'run.round_started', 'task.claimed', 'task.succeeded']);

/**
 * Yields each row resting on a person once, as it starts waiting: the ones
 * waiting now first, then new ones as the feed announces them. A row that
 * stops waiting and waits again (a retried park) is yielded again. Ends when
 * the scope ends (a run that finished) or when the loop breaks.
 */
export async function* watchDecisions(
  context: DecisionContext,
  source: DecisionSource,
): AsyncGenerator<Decision, void, undefined> {
  const feed = source.openFeed();
  let dirty = true;
  const waker: { wake: (() => void) | null } = { wake: null };
  let failure: unknown = null;
  const pump = (async () => {
    try {
      for await (const event of feed) {
        if (QUIET.has(event.type)) continue;
        dirty = true;
        waker.wake?.();
      }
    } catch (error) {
      failure = error;
      waker.wake?.();
    }
  })();
  const yielded = new Set<string>();
  try {
    for (;;) {
      if (failure) throw failure;
      if (!dirty) {
        await new Promise<void>((resolve) => {
          waker.wake = resolve;
        });
        waker.wake = null;
        continue;
      }
      dirty = false;
      const { tasks, ended } = await source.read();
      const waiting = tasks.filter(isWaiting);
      const keys = new Set(waiting.map(spell));
      for (const key of yielded) if (!keys.has(key)) yielded.delete(key);
      for (const task of waiting) {
        const key = spell(task);
        if (yielded.has(key)) continue;
        yielded.add(key);
        yield toDecision(context, task);
      }
      if (ended) return;
    }
  } finally {
    feed.close();
    await pump;
  }
}
