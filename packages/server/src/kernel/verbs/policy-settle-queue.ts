/*
 * What one kernel still has to settle after approval policy changes. Each kernel's context
 * owns one (a context copied for a test shares it); it is emptied and closed when the kernel
 * stops, so nothing of a stopped kernel runs later or stays behind in the process.
 */
import type { ParkedRowCursor } from '../../store/approvals.js';

/** Where the settling of one workspace goes on: after this row (from the first when null). */
export interface PendingSettle {
  after: ParkedRowCursor | null;
  /** How many times its settling failed in a row; 0 when it did not. */
  failures: number;
  /** Not looked at before this time (the store's clock), after a failure. */
  retryAt: number;
  /**
   * A row of this pass failed: once its last page is read, the workspace is looked at again
   * from its first row, after a wait (the pages after a failed row are read first).
   */
  again: boolean;
}

/** What this kernel still has to settle. */
export interface SettleQueue {
  workspaces: Map<string, PendingSettle>;
  /** Set at the start: every workspace with an approved parked row is looked at once. */
  everyWorkspace: boolean;
  /** When every workspace was last queued (the store's clock). */
  queuedEveryAt: number;
  /** After a failed read of the workspaces to queue, not read again before this time. */
  scanRetryAt: number;
  /** Set when the kernel stops: nothing is queued or settled from it until it starts again. */
  closed: boolean;
}

/** An empty queue, open (a kernel swept by hand without a start settles as a started one). */
export function newSettleQueue(): SettleQueue {
  return {
    workspaces: new Map(),
    everyWorkspace: false,
    queuedEveryAt: 0,
    scanRetryAt: 0,
    closed: false,
  };
}
