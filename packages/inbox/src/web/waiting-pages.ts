import type { Decision, DecisionPage, Workspace } from '@airlock/sdk';
import type { Attention } from './attention.js';
import { h } from './dom.js';
import type { InboxToolbar } from './inbox-toolbar.js';
import type { RowFacts } from './list-row.js';
import type { Order } from './order.js';
import { decisionKey } from './render.js';
import type { WaitingList } from './waiting-list.js';

/** Rows read per page after the first. */
const PAGE = 100;
/**
 * Rows of the first page: about three screens of cards, so the first card paints without
 * waiting for a hundred to be built and laid out; the next page comes as the person scrolls.
 */
const FIRST_PAGE = 30;
/** What an empty list says while its first page is on the way. */
const READING = 'Reading what waits for you…';

/** What the pages ask of the inbox around them. */
export interface PagesHost {
  /** Puts a decision read with a page on the list. */
  add(decision: Decision): void;
  /** A read failed. */
  fail(error: unknown): void;
}

/** A first page as its rows and total stood: equal signatures, nothing on the page changed. */
function pageSignature(page: DecisionPage): string {
  return JSON.stringify([page.total, page.decisions.map((decision) => decision.task)]);
}

/**
 * How much of the waiting list the page holds: it reads the list a page at a
 * time (the first once, more as the person scrolls), and keeps the total the
 * kernel counts, shown in the toolbar, the "Show more" button and the tab's
 * title. A new generation (another order, a reconnection) drops what an older
 * read brings.
 */
export class WaitingPages {
  /** How many decisions wait in the workspace, as far as this page knows. */
  private total = 0;
  private nextCursor: string | null = null;
  private loading: Promise<void> | null = null;
  private counting: ReturnType<typeof setTimeout> | null = null;
  /** What the last first page read said (its rows and total), to tell whether a later read agrees. */
  private firstRead = '';
  /**
   * Whether the list's first page (of this generation) was read: until it is, an empty list
   * says it is being read, never that nothing waits (a slow network would have it lie).
   */
  private pageRead = false;
  /** Counts the list's fresh starts; a read answered for an older one is dropped. */
  generation = 0;

  /** Shown while the list is empty: being read, or nothing waits. */
  readonly empty = h('p', { class: 'empty' }, READING);
  /**
   * While a filter is on: how many loaded rows match it, and that the rows not loaded yet
   * were not searched (a filter for `rm -rf` finding none among 130 rows of 1000 says so).
   */
  readonly filterNote = h('p', { class: 'filter-note', role: 'status', hidden: true });
  /** Reads the next page (the list also reads it as the button scrolls into view). */
  readonly more = h(
    'button',
    { type: 'button', class: 'more', hidden: true, onclick: () => void this.loadMore() },
    'Show more',
  );

  constructor(
    private readonly options: {
      workspace: Workspace;
      list: WaitingList;
      toolbar: InboxToolbar;
      attention: Attention;
      host: PagesHost;
    },
  ) {}

  /** True while every waiting decision is on the list (no page is left to read). */
  get complete(): boolean {
    return this.nextCursor === null;
  }

  /** True when a row with these facts belongs to the part of the list already read. */
  holds(facts: RowFacts): boolean {
    return this.nextCursor === null || this.options.list.before(facts);
  }

  /** Counts decisions that started (1) or stopped (-1) waiting. */
  count(delta: number): void {
    this.total = Math.max(0, this.total + delta);
    this.show();
  }

  /** Empties the list and reads its first page afresh, in this order. */
  async reload(order: Order): Promise<void> {
    this.generation += 1;
    this.options.list.clear(order);
    this.nextCursor = null;
    this.loading = null;
    this.pageRead = false;
    this.showEmpty();
    await this.loadPage(order, undefined);
  }

  /**
   * Reads the first page again and keeps the list when the kernel says what
   * the last first read said (the same rows, as they were, and the same
   * total); otherwise empties the list and reads it afresh. For a first page
   * read before the feed was live: whatever the feed did not bring between
   * that read and the feed going live shows here.
   */
  async confirm(order: Order): Promise<void> {
    const generation = this.generation;
    const page = await this.options.workspace.decisions.page({ limit: FIRST_PAGE, order });
    if (generation !== this.generation) return;
    if (pageSignature(page) !== this.firstRead) await this.reload(order);
  }

  /** Reads the next page whenever the "Show more" button comes near the screen; returns how to stop. */
  loadNearEnd(): () => void {
    const observer = new IntersectionObserver(
      (seen) => {
        if (seen.some((entry) => entry.isIntersecting)) void this.loadMore();
      },
      { rootMargin: '600px' },
    );
    observer.observe(this.more);
    return () => observer.disconnect();
  }

  /** Reads the next page, unless one is on the way or none is left. */
  async loadMore(): Promise<void> {
    if (this.nextCursor === null || this.loading) return this.loading ?? undefined;
    await this.loadPage(this.options.list.order, this.nextCursor).catch(this.options.host.fail);
  }

  private loadPage(order: Order, cursor: string | undefined): Promise<void> {
    const { workspace, list, host } = this.options;
    const generation = this.generation;
    const work = (async () => {
      const page = await workspace.decisions.page({
        limit: cursor ? PAGE : FIRST_PAGE,
        order,
        ...(cursor ? { cursor } : {}),
      });
      if (generation !== this.generation) return;
      if (!cursor) {
        this.firstRead = pageSignature(page);
        this.pageRead = true;
      }
      for (const decision of page.decisions) {
        if (!list.get(decisionKey(decision))) host.add(decision);
      }
      this.total = page.total;
      this.nextCursor = page.next_cursor;
      this.show();
    })();
    this.loading = work;
    return work.finally(() => {
      if (this.loading === work) this.loading = null;
    });
  }

  /** Asks the kernel for the total again, soon: a decision this page never held stopped waiting. */
  recount(): void {
    if (this.counting) return;
    this.counting = setTimeout(() => {
      this.counting = null;
      const generation = this.generation;
      this.options.workspace.decisions.page({ limit: 1 }).then((page) => {
        if (generation !== this.generation) return;
        this.total = page.total;
        this.show();
      }, this.options.host.fail);
    }, 250);
  }

  /** Shows the total, how many rows are on the list, and whether more can be read. */
  show(): void {
    const shown = this.options.list.size;
    this.options.toolbar.showCount(
      shown < this.total ? `${this.total} waiting (${shown} shown)` : `${this.total} waiting`,
    );
    this.showEmpty();
    this.showFilterNote(shown);
    this.more.hidden = this.nextCursor === null;
    this.more.textContent = `Show ${Math.min(PAGE, this.total - shown)} more of ${this.total}`;
    this.options.attention.count(this.total);
  }

  /** The filter's line: see {@link filterNote}; hidden while no filter is on. */
  private showFilterNote(shown: number): void {
    const { list } = this.options;
    const note = this.filterNote;
    note.hidden = !list.filtering;
    if (note.hidden) {
      note.textContent = '';
      return;
    }
    const unloaded = this.total - shown;
    const rest =
      this.nextCursor === null
        ? '.'
        : `; ${unloaded > 0 ? `${unloaded} more` : 'more'} waiting calls are not loaded, so not searched: "Show more" loads them.`;
    const words = `${list.matching} of the ${shown} loaded calls match the filter${rest}`;
    // Rewritten only when it changes: a screen reader hears a new count, not every keystroke.
    if (note.textContent !== words) note.textContent = words;
  }

  /** The empty list's line: reading, until the first page came; then only while nothing waits. */
  private showEmpty(): void {
    const shown = this.options.list.size;
    const reading = !this.pageRead && shown === 0;
    this.empty.hidden = !reading && (this.total > 0 || shown > 0);
    this.empty.textContent = reading ? READING : 'Nothing is waiting for you.';
  }
}
