/*
 * A replaced approval policy may ask less of a waiting call than the approvals it already has
 * (a lowered `required`, an added approver who had approved): such a call is approved at once,
 * as the approval that completes a quorum approves it. The put approves the first of them
 * before it answers; the kernel's sweep approves the rest, and, after a start, any a process
 * that stopped between a put's commit and its settle left waiting.
 */
import { type ParkedRowCursor, workspacesWithApprovedParks } from '../../store/approvals.js';
import type { KernelContext } from '../context.js';
import { type SettledCall, settlePage } from './policy-settle-page.js';
import type { PendingSettle, SettleQueue } from './policy-settle-queue.js';

export type { SettledCall };

/** How many waiting rows a put looks at before it answers; the kernel's sweep takes the rest. */
export const POLICY_SETTLE_LIMIT = 500;

/** How many waiting rows one page of the sweep's settling reads. */
const SWEEP_PAGE = 200;

/** How many parked rows one sweep reads at most, so the other clocks keep their pace. */
const ROWS_PER_SWEEP = 1000;

/** How many workspaces one sweep looks at at most (most pages after a start are short). */
const WORKSPACES_PER_SWEEP = 20;

/** The first wait before a workspace whose settling failed is looked at again; it doubles. */
const RETRY_FIRST_MS = 1000;

/** The longest wait before a workspace whose settling keeps failing is looked at again. */
const RETRY_LONGEST_MS = 5 * 60 * 1000;

/**
 * How often a kernel looks at every workspace with an approved parked row again by default:
 * a call another kernel's put met, whose process stopped before settling it and has not
 * started again, waits at most this long (its deadline is 24 hours by default).
 */
export const DEFAULT_SETTLE_RESCAN_MS = 10 * 60 * 1000;

/** The kernel's own queue, on its context. */
function queueOf(ctx: KernelContext): SettleQueue {
  return ctx.settles;
}

/** A workspace to be looked at again from its first row, later the more it failed. */
function retryLater(ctx: KernelContext, failures: number): PendingSettle {
  const wait = Math.min(RETRY_FIRST_MS * 2 ** (failures - 1), RETRY_LONGEST_MS);
  return { after: null, failures, retryAt: ctx.store.now() + wait, again: false };
}

/**
 * A workspace to be looked at after `after` at the next sweep; with `again`, from its first
 * row too once its last page is read (a row before `after` failed).
 */
function goOn(after: ParkedRowCursor | null, failures = 0, again = false): PendingSettle {
  return { after, failures, retryAt: 0, again };
}

/**
 * Where a workspace's settling goes on after a page: at the next page, even past a row whose
 * unit failed (a row that kept failing held every page after it), and from the first row
 * after a wait once the last page was read if a row of the pass failed; null when done.
 */
function afterPage(
  ctx: KernelContext,
  pending: Pick<PendingSettle, 'failures' | 'again'>,
  page: { failed: number; next: ParkedRowCursor | null },
): PendingSettle | null {
  const failed = page.failed > 0;
  const failures = failed ? pending.failures + 1 : pending.failures;
  const again = pending.again || failed;
  if (page.next !== null) return goOn(page.next, failures, again);
  return again ? retryLater(ctx, Math.max(failures, 1)) : null;
}

/**
 * Approves the parked rows of the workspace whose standing approvals now meet what the approval
 * policy asks of them: the first {@link POLICY_SETTLE_LIMIT} rows holding approvals (oldest
 * first) before it returns, the rest in this kernel's sweeps after it, a page at a time. Each
 * row is settled in a unit of its own that takes its run's lock first, as an approve does, and
 * reads the row, the policy and its approvals afresh, so it is approved once (see
 * `settlePage`). Returns the rows it approved before returning; never throws (the policy was
 * written before it runs: what it could not look at now is left to the sweep).
 */
export async function settleMetQuorums(
  ctx: KernelContext,
  options: { workspaceId: string; policyVersion: number },
): Promise<SettledCall[]> {
  const queue = queueOf(ctx);
  try {
    const page = await settlePage(ctx, {
      workspaceId: options.workspaceId,
      limit: POLICY_SETTLE_LIMIT,
      after: null,
    });
    // This pass looked at every row before `next` under the new policy: the sweep goes on from
    // there (an earlier put's pass, still queued, is taken over), and when a row's unit failed
    // it looks at the workspace from its first row again once it has read the last page.
    leave(queue, options.workspaceId, afterPage(ctx, { failures: 0, again: false }, page));
    return page.settled;
  } catch (error) {
    // The policy is written already: its answer must not say otherwise. The sweep tries again.
    leave(queue, options.workspaceId, retryLater(ctx, 1));
    ctx.logger.warn(
      { err: error, workspaceId: options.workspaceId, policyVersion: options.policyVersion },
      'settling calls a replaced approval policy approves stopped; the clock sweep goes on',
    );
    return [];
  }
}

/**
 * Leaves what is left of a workspace to the sweep (at the back of the queue), or nothing when
 * `pending` is null; a stopped kernel's queue takes nothing (its pass ended after the stop).
 */
function leave(queue: SettleQueue, workspaceId: string, pending: PendingSettle | null): void {
  queue.workspaces.delete(workspaceId);
  if (pending !== null && !queue.closed) queue.workspaces.set(workspaceId, pending);
}

/**
 * At a kernel's start: every workspace with a parked row holding approvals is looked at once by
 * the sweep, for a call a put met but whose process stopped before it settled it.
 */
export function settleEveryWorkspaceSoon(ctx: KernelContext): void {
  const queue = queueOf(ctx);
  queue.closed = false;
  queue.everyWorkspace = true;
}

/**
 * At a kernel's stop: its queue is emptied and closed, so no settle of it runs after the stop
 * (a pass still in flight leaves nothing behind); the next start looks at every workspace again.
 */
export function forgetQueuedSettles(ctx: KernelContext): void {
  const queue = queueOf(ctx);
  queue.closed = true;
  queue.workspaces.clear();
  queue.everyWorkspace = false;
}

/**
 * One sweep's share of settling: at the first sweep after a start and every `rescanMs` after,
 * every workspace with a parked row holding approvals is queued; then a page of each queued
 * workspace in turn, until {@link ROWS_PER_SWEEP} rows were read, a page's worth approved or
 * {@link WORKSPACES_PER_SWEEP} workspaces looked at. A workspace whose last page was read
 * leaves the queue; one a row of whose pass failed goes on to its next pages first, then is
 * looked at again from its first row after a wait that doubles with each failure (as is one
 * whose page could not be read). Returns how many rows it approved; never throws.
 */
export async function settleQueued(
  ctx: KernelContext,
  options: { stopping: () => boolean; rescanMs: number },
): Promise<number> {
  const queue = queueOf(ctx);
  if (queue.closed) return 0;
  const now = ctx.store.now();
  const scanDue = queue.everyWorkspace || now - queue.queuedEveryAt >= options.rescanMs;
  if (scanDue && now >= queue.scanRetryAt) {
    try {
      for (const workspaceId of await workspacesWithApprovedParks(ctx.store)) {
        if (!queue.workspaces.has(workspaceId) && !queue.closed) {
          queue.workspaces.set(workspaceId, goOn(null));
        }
      }
      queue.everyWorkspace = false;
      queue.queuedEveryAt = now;
    } catch (error) {
      // Tried again a little later, not at every sweep; what is queued goes on meanwhile.
      queue.scanRetryAt = now + RETRY_FIRST_MS * 5;
      ctx.logger.warn({ err: error }, 'reading the workspaces to settle failed; tried again soon');
    }
  }
  let approved = 0;
  let read = 0;
  const due = [...queue.workspaces].filter(([, pending]) => pending.retryAt <= now);
  for (const [workspaceId, pending] of due.slice(0, WORKSPACES_PER_SWEEP)) {
    // Each approval is a unit of its own: a sweep makes at most a page of them.
    if (options.stopping() || queue.closed || read >= ROWS_PER_SWEEP || approved >= SWEEP_PAGE)
      break;
    let next: PendingSettle | null;
    try {
      const page = await settlePage(ctx, { workspaceId, limit: SWEEP_PAGE, after: pending.after });
      approved += page.settled.length;
      read += page.read;
      next = afterPage(ctx, pending, page);
    } catch (error) {
      ctx.logger.warn(
        { err: error, workspaceId },
        'settling calls an approval policy approves failed; a later sweep tries again',
      );
      next = retryLater(ctx, pending.failures + 1);
    }
    // A put's own pass replaced this entry meanwhile (or the kernel stopped): that one goes on.
    if (queue.workspaces.get(workspaceId) !== pending) continue;
    // To the back of the queue: the workspaces take turns.
    leave(queue, workspaceId, next);
  }
  return approved;
}
