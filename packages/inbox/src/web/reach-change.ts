import type { Decision } from '@airlock/sdk';
import { approvalsCount, cannotBeApproved } from './approvals-view.js';
import { decisionKey } from './render.js';

/**
 * Changes of policy (`policy.changed` on the workspace's feed) after which a
 * waiting call's quorum may have become unreachable or reachable again: a
 * member revoked or added, the approval policy replaced.
 */
export const REACH_CHANGES: ReadonlySet<string> = new Set([
  'credential_revoked',
  'credential_created',
  'approval_policy_replaced',
]);

/** A page of the waiting list as a re-read reads it. */
export interface ReachPage {
  decisions: Decision[];
  next_cursor: string | null;
}

/** What a re-read of reachability needs of the waiting list. */
export interface ReachHost {
  /** Reads `limit` decisions of the waiting list after `cursor` (from its start without one), in the order the person sees. */
  page(limit: number, cursor: string | undefined): Promise<ReachPage>;
  /** Counts the list's fresh starts (another order, a reconnection): a re-read of an older one stops. */
  generation(): number;
  /** Whether a decision's place lies within the part of the list already loaded (later rows come read with their page). */
  loaded(decision: Decision): boolean;
  /** Says a row's count and reachability in place; false when the row is not on the list. */
  show(key: string, progress: string | null, unreachable: boolean): boolean;
  /** The row's decision as read before is stale: the next open or tick reads it again. */
  forget(key: string): void;
  /** The open call's key, whose card is drawn again from the new read. */
  openKey(): string | null;
  showOpen(decision: Decision): void;
  fail(error: unknown): void;
}

/** How many rows one read of a re-read covers; it reads as many as the loaded list holds. */
const REREAD_ROWS = 100;

/**
 * After such a change, reads the loaded part of the waiting list again, a
 * page at a time, and says each approval row's "too few approvers" (and its
 * count) in place, without emptying the list (ticks, the open card, scroll
 * stay); the open card is drawn again. A burst of changes makes one re-read
 * at a time, and one more after it. Rows past the loaded part show it when
 * their page is read; a re-read costs a read per hundred rows the person
 * loaded, never one per row.
 */
export class ReachRereads {
  private running = false;
  private again = false;
  /** Rows their own event changed while a re-read was on its way: it is older than them. */
  private readonly changedSince = new Set<string>();

  constructor(private readonly host: ReachHost) {}

  /**
   * A row's own event (an approval's `task.approval_added`) said its count in place: a re-read
   * begun before it answers with the row as it was, and does not draw over it.
   */
  rowChanged(key: string): void {
    if (this.running) this.changedSince.add(key);
  }

  /** A change of `kind` arrived on the feed. */
  changed(kind: string): void {
    if (!REACH_CHANGES.has(kind)) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.run().finally(() => {
      this.running = false;
    });
  }

  private async run(): Promise<void> {
    try {
      do {
        this.again = false;
        await this.reread();
      } while (this.again);
    } catch (error) {
      this.host.fail(error);
    }
  }

  private async reread(): Promise<void> {
    const { host } = this;
    this.changedSince.clear();
    const generation = host.generation();
    let cursor: string | undefined;
    for (;;) {
      const page = await host.page(REREAD_ROWS, cursor);
      // The list was read afresh meanwhile: its rows are as that read found them.
      if (generation !== host.generation()) return;
      for (const decision of page.decisions) this.redraw(decision);
      const last = page.decisions[page.decisions.length - 1];
      if (page.next_cursor === null || !last || !host.loaded(last)) return;
      cursor = page.next_cursor;
    }
  }

  private redraw(decision: Decision): void {
    const { host } = this;
    if (!decision.isApproval()) return;
    const key = decisionKey(decision);
    if (this.changedSince.has(key)) return;
    if (!host.show(key, approvalsCount(decision), cannotBeApproved(decision))) return;
    host.forget(key);
    if (host.openKey() === key) host.showOpen(decision);
  }
}
