import { type Decision, type DecisionContext, isWaiting, toDecision } from '../decisions.js';
import { isFeedResyncError } from '../errors.js';
import type { FeedOptions, FeedSubscription } from '../feed.js';
import type { TaskView } from '../views.js';
import { isPassingFailure } from './socket.js';

/** Options of a decisions watcher. */
export interface WatchOptions {
  /** Ends the watcher when aborted: a waiting `next()` resolves as done. */
  signal?: AbortSignal | undefined;
}

/** What a decision watcher reads: the waiting rows now, and a feed that says when to look again. */
export interface DecisionSource {
  /** The rows resting on a person now, and whether the watched scope has ended. */
  read(signal: AbortSignal): Promise<{ tasks: TaskView[]; ended: boolean }>;
  /** A live feed of the watched scope's events. */
  openFeed(options: FeedOptions): FeedSubscription;
}

/**
 * One waiting spell of a row: a row parked again (retried after it expired)
 * gets a fresh clock, so it is a new decision even if no read saw it leave.
 */
function spell(task: TaskView): string {
  return `${task.run_id}/${task.key}/${task.state}/${task.deadline_at ?? ''}`;
}

/** The longest pause before a watcher reads again after a passing failure. */
const MAX_READ_PAUSE_MS = 5000;

// Events that cannot change what rests on a person.
const QUIET = new Set(['run.model_read', 'run.round_started', 'task.claimed', 'task.succeeded']);

/** When the watcher must read the rows again, and how it waits until then. */
class Nudges {
  dirty = true;
  failure: unknown = null;
  private wake: (() => void) | null = null;

  nudge(): void {
    this.dirty = true;
    this.wake?.();
  }

  fail(error: unknown): void {
    this.failure = error;
    this.wake?.();
  }

  /** Waits for the next nudge, failure or stop; or `ms` at most, when given. */
  async next(ms?: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await new Promise<void>((resolve) => {
      this.wake = resolve;
      if (ms !== undefined) timer = setTimeout(resolve, ms);
    });
    clearTimeout(timer);
    this.wake = null;
  }
}

/**
 * Follows the scope's feed from its head (history is read as state, never
 * replayed, so a store whose retention pruned events is watched as any
 * other), nudging on each event that may change what waits, and on each
 * (re)connection, when events may have gone by unseen. A feed told to
 * resynchronise (a long outage outlived by retention) is opened again at the head.
 */
async function pumpFeed(source: DecisionSource, nudges: Nudges, stop: AbortSignal): Promise<void> {
  while (!stop.aborted) {
    const feed = source.openFeed({
      after: 'latest',
      signal: stop,
      onStatus: (status) => {
        if (status === 'open') nudges.nudge();
      },
    });
    try {
      for await (const event of feed) if (!QUIET.has(event.type)) nudges.nudge();
      return;
    } catch (error) {
      if (!isFeedResyncError(error)) {
        nudges.fail(error);
        return;
      }
    } finally {
      feed.close();
    }
  }
}

/**
 * Yields each row resting on a person once, as it starts waiting: the ones
 * waiting now first, then new ones as the feed announces them. A row that
 * stops waiting and waits again (a retried park) is yielded again. Ends when
 * the scope ends (a run that finished), when the loop breaks, or when stopped.
 */
async function* follow(
  context: DecisionContext,
  source: DecisionSource,
  stopper: AbortController,
): AsyncGenerator<Decision, void, undefined> {
  const stop = stopper.signal;
  if (stop.aborted) return;
  const nudges = new Nudges();
  const wakeOnStop = () => nudges.nudge();
  stop.addEventListener('abort', wakeOnStop, { once: true });
  const pump = pumpFeed(source, nudges, stop);
  const yielded = new Set<string>();
  let failedReads = 0;
  try {
    while (!stop.aborted) {
      if (nudges.failure) throw nudges.failure;
      if (!nudges.dirty) {
        await nudges.next();
        continue;
      }
      nudges.dirty = false;
      let read: { tasks: TaskView[]; ended: boolean };
      try {
        read = await source.read(stop);
        failedReads = 0;
      } catch (error) {
        if (stop.aborted) return;
        if (!isPassingFailure(error)) throw error;
        // A kernel restarting or its store out for a moment: read again after a pause, as the
        // feed reconnects by itself, rather than end a watcher that never ends by itself.
        nudges.dirty = true;
        await nudges.next(Math.min(MAX_READ_PAUSE_MS, 100 * 2 ** failedReads++));
        continue;
      }
      if (stop.aborted) return;
      const waiting = read.tasks.filter(isWaiting);
      const keys = new Set(waiting.map(spell));
      for (const key of yielded) if (!keys.has(key)) yielded.delete(key);
      for (const task of waiting) {
        const key = spell(task);
        if (yielded.has(key)) continue;
        yielded.add(key);
        yield toDecision(context, task);
        if (stop.aborted) return;
      }
      if (read.ended) return;
    }
  } finally {
    stop.removeEventListener('abort', wakeOnStop);
    // A watcher that ended by itself (its scope ended, a read failed) closes its feed too.
    stopper.abort();
    await pump;
  }
}

/**
 * A decisions watcher (see {@link follow}) that ends at once when its loop
 * breaks, `return()` is called, or the signal aborts: a `next()` waiting for
 * a decision resolves as done, and the feed socket and any read in flight end.
 */
export function watchDecisions(
  context: DecisionContext,
  source: DecisionSource,
  options: WatchOptions = {},
): AsyncIterableIterator<Decision> {
  const stop = new AbortController();
  const end = () => stop.abort();
  if (options.signal?.aborted) end();
  else options.signal?.addEventListener('abort', end, { once: true });
  const inner = follow(context, source, stop);
  const done: IteratorReturnResult<undefined> = { done: true, value: undefined };
  return {
    next: async () => {
      let ended = true;
      try {
        const result = await inner.next();
        ended = result.done === true;
        return result;
      } finally {
        if (ended) options.signal?.removeEventListener('abort', end);
      }
    },
    return: () => {
      end();
      options.signal?.removeEventListener('abort', end);
      // Runs the generator's cleanup once it settles; the caller need not wait for it.
      inner.return(undefined).catch(() => {});
      return Promise.resolve(done);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
