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

  constructor(private readonly host: ReachHost) {}

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
    const page = await host.firstPage(REREAD_ROWS);
    for (const decision of page.decisions) {
      if (!decision.isApproval()) continue;
      const key = decisionKey(decision);
      if (!host.show(key, approvalsCount(decision), cannotBeApproved(decision))) continue;
      host.forget(key);
      if (host.openKey() === key) host.showOpen(decision);
    }
  }
}
