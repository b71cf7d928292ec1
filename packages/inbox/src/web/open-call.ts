import type { DetailPane } from './detail-pane.js';
import type { RowReads } from './row-reads.js';
import type { WaitingList } from './waiting-list.js';

/**
 * What the pane does when the open call's row goes: opens its neighbour
 * after a verb of this page (`next`), says the call stopped waiting and
 * opens nothing when it went by itself (`left`: decided elsewhere,
 * expired), or stays as it is (`stay`: the row is drawn again).
 */
export type AfterRemove = 'next' | 'left' | 'stay';

/**
 * The call open in the detail pane, and the keyboard's place on the list:
 * `j`/`k` move it, a verb of this page moves it on to the next row, and a
 * call that went by itself leaves the pane saying so, with nothing open in
 * its place (a key meant for it must not land on a call never seen), `j`/`k`
 * going on from where it was.
 */
export class OpenCall {
  /** The open row's key; null while nothing is open. */
  key: string | null = null;
  /** The rows around a call that went by itself, where `j`/`k` go on from. */
  private resume: { previous: string | null; next: string | null } | null = null;

  constructor(
    private readonly list: WaitingList,
    private readonly detail: DetailPane,
    private readonly reads: RowReads,
  ) {}

  /** Opens a decision in the detail pane (null empties it). */
  select(key: string | null, focus = true): void {
    if (this.key) this.list.get(this.key)?.row.removeAttribute('aria-current');
    this.key = key;
    this.resume = null;
    const entry = key ? this.list.get(key) : undefined;
    if (!key || !entry) {
      this.detail.clear();
      return;
    }
    entry.row.setAttribute('aria-current', 'true');
    entry.row.scrollIntoView({ block: 'nearest' });
    if (focus) (entry.row.querySelector('.open') as HTMLElement).focus({ preventScroll: true });
    if (entry.decision) {
      this.detail.show(entry.decision);
      return;
    }
    // A row drawn from its events is read as it opens.
    this.detail.reading();
    void this.reads.decisionOf(key).then((decision) => {
      if (this.key !== key) return;
      // A failed read leaves the row; its error shows in the toolbar.
      if (decision) this.detail.show(decision);
      else this.detail.clear();
    });
  }

  /** Opens the next (1) or the previous (-1) visible row. */
  move(step: 1 | -1): void {
    const rows = this.list.visibleRows();
    if (rows.length === 0) return;
    const around = this.key === null ? this.resume : null;
    const onward = step === 1 ? around?.next : around?.previous;
    const resumed = onward ?? around?.next ?? around?.previous;
    if (resumed && rows.some((row) => row.dataset.decision === resumed)) {
      this.select(resumed);
      return;
    }
    const at = rows.findIndex((row) => row.dataset.decision === this.key);
    const next = rows[at === -1 ? 0 : Math.min(rows.length - 1, Math.max(0, at + step))];
    this.select(next?.dataset.decision ?? null);
  }

  /**
   * Called before the row of `key` leaves the list; answers what to do to the
   * pane once it left (nothing unless it is the open one).
   */
  leaving(key: string, then: AfterRemove): () => void {
    if (key !== this.key || then === 'stay') return () => {};
    const next = this.list.neighbour(key);
    const around = this.list.neighbours(key);
    const summary = this.list.get(key)?.facts.summary ?? '';
    return () => {
      if (then === 'next') {
        this.detail.movingOn();
        this.select(next, false);
      } else this.stoppedWaiting(summary, around);
    };
  }

  /**
   * Runs `reread` (the list's first page read afresh) and keeps the open
   * call open as read now (its card says if it changed), on the list or past
   * the loaded page; one that stopped waiting meanwhile (decided while the
   * feed was down) is said in the pane, as its event would have.
   */
  async across(reread: () => Promise<void>): Promise<void> {
    const key = this.key;
    const summary = (key && this.list.get(key)?.facts.summary) || key || '';
    const around = key ? this.list.neighbours(key) : { previous: null, next: null };
    await reread();
    if (!key || this.key !== key) return;
    const entry = this.list.get(key);
    if (entry?.decision) this.detail.show(entry.decision);
    if (entry) return;
    // A verb sent from its card answers for it: the pane moves on as that answer says.
    if (this.detail.busy) {
      this.select(null);
      return;
    }
    const [runId = '', taskKey = ''] = key.split('/');
    const decision = await this.reads.read(runId, taskKey);
    if (this.key !== key || this.list.get(key)) return;
    if (decision) this.detail.show(decision);
    else this.stoppedWaiting(summary, around);
  }

  /**
   * The open call stopped waiting by itself: the pane says so (`summary`
   * names it) and opens nothing, `j`/`k` going on from the rows that were
   * `around` it.
   */
  stoppedWaiting(summary: string, around: { previous: string | null; next: string | null }): void {
    const key = this.key;
    this.select(null);
    this.resume = around;
    this.detail.left(summary, key);
  }
}
