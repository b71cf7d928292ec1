import type { Decision, SocketStatus, TaskView, Workspace } from '@airlock/sdk';
import { AfterLines } from './after-lines.js';
import { Attention } from './attention.js';
import { BulkBar } from './bulk.js';
import { inboxVerbs } from './card-verbs.js';
import { DetailPane } from './detail-pane.js';
import { afterPaint, h } from './dom.js';
import { FeedRows } from './feed-rows.js';
import { bindKeys, keyHelp } from './inbox-keys.js';
import { InboxToolbar } from './inbox-toolbar.js';
import { factsOf } from './list-row.js';
import { NewMarker } from './new-marker.js';
import { type AfterRemove, OpenCall } from './open-call.js';
import type { Order } from './order.js';
import { ReachRereads } from './reach-change.js';
import { decisionKey } from './render.js';
import { RowReads } from './row-reads.js';
import { endsSession } from './session-end.js';
import { type Entry, WaitingList } from './waiting-list.js';
import { WaitingPages } from './waiting-pages.js';
import type { Words } from './words.js';
import { followWaiting } from './workspace-feed.js';

/** What the inbox shows when its token stops working. */
export interface InboxCallbacks {
  onSignedOut(reason: string): void;
}

/**
 * The live list of decisions waiting in a workspace: a page at a time (more
 * as the person scrolls), the total in the toolbar and the tab's title, kept
 * current from the workspace feed one row at a time. A first park is drawn
 * from its own events (with "0 of 2 approvals" when the approval policy asks
 * several) and read only when a person opens or ticks it, so an open inbox
 * asks the kernel nothing per park; one more approval toward a quorum changes
 * its row's count in place; a row whose input changed while it waits (an
 * edit) is read alone; a decision made anywhere takes its row away as its
 * event arrives. A dense list on the left, the open decision in a detail pane.
 */
export class InboxView {
  private order: Order = 'newest';
  private readonly list = new WaitingList(this.order, {
    open: (opened) => this.open.select(opened),
    tick: (ticked, on) => {
      this.bulk.set(ticked, on);
      // Read now, so the bulk verb is bound to the version there was when the person ticked it.
      if (on) void this.reads.decisionOf(ticked);
    },
  });
  /** Rows this page took away itself: their settling event changes no count. */
  private readonly gone = new Set<string>();
  private readonly attention = new Attention();
  private readonly controller = new AbortController();
  private unbindKeys: (() => void) | null = null;
  /** The feed's last status, and how many times it opened: "live" is said for the last opening only. */
  private feedStatus: SocketStatus = 'connecting';
  private openings = 0;
  private stopLoadingMore: (() => void) | null = null;

  private readonly marker = new NewMarker(() => this.showNew());
  private readonly afters = new AfterLines();
  // A card's verb is said once; a bulk verb's calls are said by the bulk bar's summary.
  private readonly actions = inboxVerbs({
    settled: (decision, done) => this.settled(decision, done, true),
    // The row stays: the approval's feed event shows its new count in place.
    progressed: (decision, done) => this.afters.add(decision, done, true),
    read: (decision) => this.readRow(decision),
    said: (decision, words) => this.afters.add(decision, words, true),
    unanswered: (decision, verb) => this.detail.noteUnanswered(decision, verb),
    unansweredBefore: (decision) => this.detail.unansweredVerb(decision),
  });
  private readonly detail = new DetailPane(this.actions, (decision) => this.readRow(decision));
  private readonly toolbar = new InboxToolbar({
    order: (order) => {
      this.order = order;
      void this.reload().catch((error: unknown) => this.fail(error));
    },
    filter: (text) => {
      this.list.filter(text);
      this.bulk.keepShown((key) => this.list.shows(key));
      this.pages.show();
    },
    askNotify: () => this.attention.ask(),
    toggleHelp: () => this.toggleHelp(),
  });
  private readonly pages: WaitingPages;
  private readonly reads: RowReads;
  private readonly open: OpenCall;
  /** What the feed's events do to the rows. */
  private readonly rows: FeedRows;
  private readonly help = keyHelp();
  /** A member revoked or added, the approval policy replaced: rows say their reachability anew. */
  private readonly reach = new ReachRereads({
    page: (limit, cursor) =>
      this.workspace.decisions.page({
        limit,
        order: this.list.order,
        ...(cursor ? { cursor } : {}),
      }),
    generation: () => this.pages.generation,
    // An empty list holds no row to redraw, however many wait past it.
    loaded: (decision) => this.list.size > 0 && this.pages.holds(factsOf(decision)),
    show: (key, progress, unreachable) => !!this.list.progress(key, progress, unreachable),
    forget: (key) => this.reads.forget(key),
    openKey: () => this.open.key,
    showOpen: (decision) => this.detail.show(decision),
    fail: (error) => this.fail(error),
  });
  private readonly bulk = new BulkBar({
    decisions: async (keys) => {
      // Rows in view only, whatever ticked them: a bulk verb never decides a call out of sight.
      const shown = keys.filter((key) => this.list.shows(key));
      const read = await Promise.all(shown.map((key) => this.reads.decisionOf(key)));
      return read.filter((decision) => decision !== null);
    },
    settled: (decision, done) => this.settled(decision, done),
    // The row stays: the approval's feed event shows its new count in place.
    progressed: (decision, done) => this.afters.add(decision, done),
    read: (decision) => this.readRow(decision),
  });

  constructor(
    private readonly workspace: Workspace,
    private readonly callbacks: InboxCallbacks,
  ) {
    this.pages = new WaitingPages({
      workspace,
      list: this.list,
      toolbar: this.toolbar,
      attention: this.attention,
      host: { add: (decision) => this.add(decision), fail: (error) => this.fail(error) },
    });
    this.reads = new RowReads({
      workspace,
      list: this.list,
      pages: this.pages,
      host: {
        stoppedWaiting: (key) => {
          // Its settling event, still to come, changes no count.
          this.gone.add(key);
          this.remove(key, true, 'left');
        },
        fail: (error) => this.fail(error),
      },
    });
    this.open = new OpenCall(this.list, this.detail, this.reads);
    this.rows = new FeedRows({
      list: this.list,
      pages: this.pages,
      reads: this.reads,
      open: this.open,
      detail: this.detail,
      reach: this.reach,
      gone: this.gone,
      host: {
        add: (decision) => this.add(decision),
        remove: (key, count, then) => this.remove(key, count, then),
        arrived: (entry, summary) => this.arrived(entry, summary),
        fail: (error) => this.fail(error),
      },
    });
  }

  /** The view's root: toolbar, list and detail pane. */
  render(): HTMLElement {
    return h(
      'div',
      { class: 'inbox' },
      this.toolbar.element,
      this.help,
      this.bulk.element,
      this.afters.element,
      h(
        'div',
        { class: 'panes' },
        h(
          'div',
          { class: 'list-pane' },
          this.marker.element,
          this.pages.filterNote,
          this.pages.empty,
          this.list.element,
          this.pages.more,
        ),
        this.detail.element,
      ),
    );
  }

  /** Reads the first page and opens the feed beside it; resolves once the page shows, and follows the feed until {@link stop}. */
  async start(): Promise<void> {
    this.unbindKeys = bindKeys({
      next: () => this.open.move(1),
      previous: () => this.open.move(-1),
      approve: () => this.detail.key('approve'),
      deny: () => this.detail.key('deny'),
      edit: () => this.detail.key('edit'),
      // Only a row in view: the filter may hide the open one, and a bulk verb decides what is seen.
      tick: () => {
        const key = this.open.key;
        if (key && this.list.shows(key)) this.bulk.toggle(key, this.rowOf(key));
      },
      filter: () => this.toolbar.focusFilter(),
      help: () => this.toggleHelp(),
    });
    window.addEventListener('scroll', this.onScroll, { passive: true });
    this.stopLoadingMore = this.pages.loadNearEnd();
    // The first page is read at once, beside the feed's opening, so the first cards do not wait
    // for the feed. Once the feed is live the page is read again (a park or a decision could
    // fall between the first read and the feed going live), and the list is only read afresh
    // when that read differs. A reconnection reads the page again, which covers whatever
    // changed while the feed was down. The toolbar says "live" only once that read is in:
    // until then the list may lack what changed, and an empty one may not be empty.
    const firstPage = this.reload();
    let live = false;
    let shown = false;
    await new Promise<void>((ready, failed) => {
      firstPage.then(() => {
        shown = true;
        ready();
        // Whether the person may be asked for notifications costs a synchronous look at the
        // browser's storage and permissions (about 10 ms on a fresh page): after the first paint.
        afterPaint(() => this.toolbar.offerNotifications(this.attention.canAsk()));
      }, failed);
      void this.follow(
        (status, opening) => {
          if (status !== 'open') return;
          // (The first page's own failure is the start's.)
          const confirm = () => this.pages.confirm(this.order);
          const reading = live ? this.reload() : firstPage.then(confirm, () => {});
          reading.then(
            () => this.showLive(opening),
            (error: unknown) => this.fail(error),
          );
          live = true;
        },
        // Before the first page shows, a failure (a refused token) is the start's own.
        (error) => (shown ? this.fail(error) : failed(error)),
      );
    });
  }

  /** Stops following the feed and lets go of the page's keys and title. */
  stop(): void {
    this.controller.abort();
    this.unbindKeys?.();
    this.stopLoadingMore?.();
    window.removeEventListener('scroll', this.onScroll);
    this.attention.reset();
  }

  /**
   * Follows the workspace's feed. Every status but `open` shows at once; `open` is handed to
   * `onStatus` with its count of openings, and shows once the list is read (see {@link showLive}).
   */
  private async follow(
    onStatus: (status: SocketStatus, opening: number) => void,
    onFailure: (error: unknown) => void,
  ): Promise<void> {
    try {
      await followWaiting(this.workspace, this.controller.signal, {
        status: (status) => {
          this.feedStatus = status;
          if (status === 'open') this.openings += 1;
          else this.toolbar.showStatus(status);
          onStatus(status, this.openings);
        },
        settled: (key, at) => this.rows.settled(key, at),
        arriving: (runId, taskKey, preview) => void this.rows.arriving(runId, taskKey, preview),
        progressed: (key, progress, unreachable) =>
          this.rows.progressed(key, progress, unreachable),
        policyChanged: (change) => this.reach.changed(change),
      });
    } catch (error) {
      onFailure(error);
    }
  }

  /** Says "live" once the list read after the feed's `opening`-th opening is in, if it is still that one. */
  private showLive(opening: number): void {
    if (this.feedStatus === 'open' && this.openings === opening) this.toolbar.showStatus('open');
  }

  private arrived(entry: Entry | null, summary: string): void {
    this.attention.notify(1, summary);
    if (entry) {
      const box = entry.row.getBoundingClientRect();
      if (!entry.row.hidden && box.bottom > 0 && box.top < window.innerHeight) return;
    }
    this.marker.count(!entry && this.order !== 'newest');
  }

  private showNew(): void {
    if (this.order === 'oldest' && !this.pages.complete) {
      this.order = 'newest';
      this.toolbar.showOrder('newest');
      void this.reload().catch((error: unknown) => this.fail(error));
      return;
    }
    this.list.edge(this.order === 'newest')?.scrollIntoView({ block: 'start' });
  }

  private readonly onScroll = () => {
    if (this.marker.pending && this.order === 'newest' && window.scrollY < 40) this.marker.clear();
  };

  /** Reads the first page afresh (a new order, or the feed reconnected); see OpenCall.across. */
  private async reload(): Promise<void> {
    await this.open.across(async () => {
      await this.pages.reload(this.order);
      this.bulk.keepShown((shown) => this.list.shows(shown));
    });
  }

  /** Puts a decision's row on the list, ticked and current as before. */
  private add(decision: Decision): Entry {
    const entry = this.list.add(decision);
    const key = decisionKey(decision);
    if (this.bulk.has(key)) (entry.row.querySelector('.tick') as HTMLInputElement).checked = true;
    if (key === this.open.key) entry.row.setAttribute('aria-current', 'true');
    return entry;
  }

  /** Takes a row away; what the pane does when it is the open one: see {@link AfterRemove}. */
  private remove(key: string, count: boolean, then: AfterRemove): void {
    const after = this.open.leaving(key, then);
    if (!this.list.remove(key)) return;
    this.bulk.set(key, false);
    after();
    if (count) this.pages.count(-1);
    else this.pages.show();
  }

  private rowOf(key: string): HTMLLIElement | null {
    return this.list.get(key)?.row ?? null;
  }

  private toggleHelp(): void {
    this.help.hidden = !this.help.hidden;
  }

  private readonly fail = (error: unknown): void => {
    if (endsSession(error)) {
      this.stop();
      this.callbacks.onSignedOut(error.detail);
      return;
    }
    this.toolbar.showError((error as Error).message);
  };

  /** A decision's row as it is now (null when it cannot be read): what became of a verb's call. */
  private async readRow(decision: Decision): Promise<TaskView | null> {
    try {
      return await this.workspace.runs.run(decision.run_id).task(decision.task_key);
    } catch (error) {
      if (endsSession(error)) this.fail(error);
      return null;
    }
  }

  /**
   * A decision this page made: its row goes (unless its event took it first),
   * and a line says what was done; null `done` when it was decided elsewhere first.
   */
  private settled(decision: Decision, done: Words | null, say = false): void {
    const key = decisionKey(decision);
    if (this.list.get(key)) {
      this.gone.add(key);
      this.remove(key, true, 'next');
    }
    if (done !== null) this.afters.add(decision, done, say);
  }
}
