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

/** What a re-read of reachability needs of the waiting list. */
export interface ReachHost {
  /** Reads the waiting list's first `limit` decisions, in the order the person sees. */
  firstPage(limit: number): Promise<{ decisions: Decision[] }>;
  /** Says a row's count and reachability in place; false when the row is not on the list. */
  show(key: string, progress: string | null, unreachable: boolean): boolean;
  /** The row's decision as read before is stale: the next open or tick reads it again. */
  forget(key: string): void;
  /** The open call's key, whose card is drawn again from the new read. */
  openKey(): string | null;
  showOpen(decision: Decision): void;
  fail(error: unknown): void;
}

/** How many rows a re-read covers: the list's first page, where a person looks. */
const REREAD_ROWS = 100;

/**
 * After such a change, reads the waiting list's first page again and says
 * each approval row's "too few approvers" (and its count) in place, without
 * emptying the list (ticks, the open card, scroll stay); the open card is
 * drawn again. A burst of changes makes one read at a time, and one more
 * after it. Rows past the first page show it when they are read.
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
    const page = await host.firstPage(REREAD_ROWS);
    for (const decision of page.decisions) {
      if (!decision.isApproval()) continue;
      const key = decisionKey(decision);
      if (this.changedSince.has(key)) continue;
      if (!host.show(key, approvalsCount(decision), cannotBeApproved(decision))) continue;
      host.forget(key);
      if (host.openKey() === key) host.showOpen(decision);
    }
  }
}
