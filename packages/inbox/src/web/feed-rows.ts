import type { Decision } from '@airlock/sdk';
import type { DetailPane } from './detail-pane.js';
import { factsOf, type RowFacts, summaryOf } from './list-row.js';
import type { AfterRemove, OpenCall } from './open-call.js';
import type { ReachRereads } from './reach-change.js';
import type { RowReads } from './row-reads.js';
import { type Entry, sameWaiting, type WaitingList } from './waiting-list.js';
import type { WaitingPages } from './waiting-pages.js';

/** What the feed's rows ask of the inbox around them. */
export interface FeedRowsHost {
  /** Puts a decision's row on the list, ticked and current as before. */
  add(decision: Decision): Entry;
  /** Takes a row away; what the pane does when it is the open one: see {@link AfterRemove}. */
  remove(key: string, count: boolean, then: AfterRemove): void;
  /** A row started waiting: `entry` when it is on the loaded part of the list. */
  arrived(entry: Entry | null, summary: string): void;
  fail(error: unknown): void;
}

/**
 * What the workspace feed's events do to the waiting list: a settling event
 * takes its row away, one more approval changes a row's count in place, and
 * a row that may wait (again) is drawn from its events or read alone.
 */
export class FeedRows {
  constructor(
    private readonly options: {
      list: WaitingList;
      pages: WaitingPages;
      reads: RowReads;
      open: OpenCall;
      detail: DetailPane;
      reach: ReachRereads;
      /** Rows this page took away itself: their settling event changes no count. */
      gone: Set<string>;
      host: FeedRowsHost;
    },
  ) {}

  /** The row `key` may have stopped waiting, as of `at` (epoch ms). */
  settled(key: string, at: number): void {
    const { list, pages, open, detail, gone, host } = this.options;
    const entry = list.get(key);
    // An event older than the row's waiting spell (it parked again since) leaves it.
    if (entry && at >= (entry.decision?.task.updated_at ?? entry.facts.created_at)) {
      // A verb sent from its card, whose answer is still on the way, moves on as its answer would.
      host.remove(key, true, key === open.key && detail.busy ? 'next' : 'left');
    } else if (!entry && !gone.delete(key)) pages.recount();
  }

  /**
   * One more approval toward a row's quorum: its count changes in place,
   * without a read. A row off the loaded pages comes with its page; the open
   * row is read, so its card names who approved.
   */
  progressed(key: string, progress: string | null, unreachable: boolean | null): void {
    const { list, reads, reach, open, detail } = this.options;
    if (!list.get(key)) return;
    const [runId = '', taskKey = ''] = key.split('/');
    // An event without its count (not one this kernel writes) is read instead.
    if (progress === null) {
      void this.arriving(runId, taskKey, null);
      return;
    }
    list.progress(key, progress, unreachable);
    // A read on the way may predate this approval: the next one asks afresh, none draws over it.
    reads.forget(key);
    reach.rowChanged(key);
    if (key !== open.key) return;
    void reads.decisionOf(key).then((decision) => {
      if (decision && open.key === key) detail.show(decision);
    });
  }

  /**
   * A row may wait. A first park is drawn from its events (`preview`) and not
   * read; anything else (a question, a retry, an edit) is read alone, and its
   * row drawn from the read.
   */
  async arriving(runId: string, taskKey: string, preview: RowFacts | null): Promise<void> {
    const { list, pages, reads, open, detail, host } = this.options;
    const key = `${runId}/${taskKey}`;
    if (preview && !list.get(key)) {
      // Past the loaded part of the list: it comes with a later page.
      const entry = pages.holds(preview) ? list.preview(preview) : null;
      pages.count(1);
      host.arrived(entry, preview.summary);
      return;
    }
    const generation = pages.generation;
    // A read of the row already on the way (a tick's) may have been answered before this event.
    reads.forget(key);
    let decision: Decision | null;
    try {
      decision = await reads.read(runId, taskKey);
    } catch (error) {
      host.fail(error);
      return;
    }
    if (generation !== pages.generation) return;
    const known = list.get(key);
    if (decision === null) {
      if (known) host.remove(key, true, 'left');
      return;
    }
    const wasOpen = open.key === key;
    if (known) {
      if (known.decision && sameWaiting(known.decision, decision)) return;
      // It changed while it waited: drawn again, unticked, so a bulk verb never decides unseen changes.
      // It stays open, never through its neighbour: the pane says it changed, and keeps what the
      // person types in it.
      host.remove(key, false, 'stay');
      const entry = pages.holds(factsOf(decision)) ? host.add(decision) : null;
      if (wasOpen && entry) open.select(key, false);
      // Past the loaded pages now: its card stays open all the same, and says it changed.
      else if (wasOpen) detail.show(decision);
      pages.show();
      return;
    }
    const entry = pages.holds(factsOf(decision)) ? host.add(decision) : null;
    pages.count(1);
    host.arrived(entry, summaryOf(decision));
  }
}
