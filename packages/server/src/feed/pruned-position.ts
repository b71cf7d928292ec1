import { DECIMAL_DIGITS } from '../api/query-values.js';
import { AirlockError } from '../errors.js';
import { workspaceHead } from '../store/events.js';
import { skippedRangeAt } from '../store/restored-log.js';
import { lastSeqBefore, prunedPosition, runLifetime } from '../store/retention.js';
import type { Store } from '../store/store.js';

/** Where a reader of the event log asks to resume: a workspace (or one run of it) after a sequence number. */
export interface ResumePosition {
  workspaceId: string;
  runId?: string | null | undefined;
  after: number;
}

/**
 * A sequence number as a reader sends one back (a WebSocket's `after`, an
 * EventSource's `Last-Event-ID`): decimal digits up to 2^53 - 1; undefined
 * for anything else, which Number() would read as some other number (`1e3`,
 * `0x10`, ` 3`, or past 2^53).
 */
export function sequenceNumberOf(text: string): number | undefined {
  const value = DECIMAL_DIGITS.test(text) ? Number(text) : Number.NaN;
  return Number.isSafeInteger(value) ? value : undefined;
}

/**
 * Where a feed reader resumes: after a sequence number, after the
 * workspace's head for `latest` (a fresh reader skips the history it does
 * not need), or from the start.
 */
export function resumeAfter(
  store: Store,
  workspaceId: string,
  position: number | 'latest' | undefined,
): Promise<number> | number {
  return position === 'latest' ? workspaceHead(store, workspaceId) : (position ?? 0);
}

/**
 * The refusal for a reader resuming after a position the workspace's log
 * never reached, or null. A feed only ever sends positions it committed (the
 * workspace's counter moves in the same transaction), so such a position
 * comes from a store since restored from an earlier backup, whose new events
 * reuse the numbers the reader already passed: waiting for the head to
 * reach it would skip them silently. It is told to resynchronise, with the
 * code a pruned position gets, since what it must do is the same.
 */
async function aheadOfLog(store: Store, position: ResumePosition): Promise<AirlockError | null> {
  const head = await workspaceHead(store, position.workspaceId);
  if (position.after <= head) return null;
  return new AirlockError(
    'feed_position_pruned',
    `events after ${position.after} were never written to this store (its last is ${head}): ` +
      'it was restored from an earlier backup, or the position is not one the feed sent; ' +
      `read the current state again, then resume with after=${head} or after=latest`,
  );
}

/**
 * The refusal for a reader resuming inside the numbers a restore skipped
 * (store/restored-log.ts), or null: it read events of the store the restore
 * replaced, after the backup, which the restore undid. Its view holds them,
 * so it resynchronises, with the code a pruned position gets.
 */
async function inSkippedRange(
  store: Store,
  position: ResumePosition,
): Promise<AirlockError | null> {
  const range = await skippedRangeAt(store, position.workspaceId, position.after);
  if (!range) return null;
  return new AirlockError(
    'feed_position_pruned',
    `events ${range.after + 1} to ${range.through} were written by the store this one replaced when it was ` +
      `restored from a backup whose log ended at ${range.after}; the restore undid them: ` +
      'read the current state again, then resume with after=latest',
  );
}

/**
 * The refusal (`feed_position_pruned`) for a reader that would resume where
 * retention pruned events it would have read, or null when nothing it
 * would read is gone; also for one whose position a restore undid (past
 * the log's head, or inside the numbers the restore skipped). A whole-workspace reader behind the highest pruned
 * sequence number must resynchronise. One run's reader only when that run
 * may have lost events: never while it runs (retention keeps a live run's
 * events whole), always once it was pruned, and, once it has ended, when it
 * began before the pruned position (every event of a run comes after the
 * last one written before it was created).
 *
 * Read it after the page it guards: a delete and the move of the pruned
 * position commit together, so a page that missed events is always caught.
 */
export async function prunedResume(
  store: Store,
  position: ResumePosition,
): Promise<AirlockError | null> {
  const ahead = (await aheadOfLog(store, position)) ?? (await inSkippedRange(store, position));
  if (ahead) return ahead;
  const { prunedThrough } = await prunedPosition(store, position.workspaceId);
  if (position.after >= prunedThrough) return null;
  if (position.runId) {
    const run = await runLifetime(store, position.workspaceId, position.runId);
    if (run && !run.ended) return null;
    if (run && (await lastSeqBefore(store, position.workspaceId, run.createdAt)) >= prunedThrough) {
      return null;
    }
  }
  return new AirlockError(
    'feed_position_pruned',
    `events after ${position.after} up to ${prunedThrough} were pruned by the workspace's retention policy: ` +
      `read the current state again, then resume with after=${prunedThrough} or after=latest`,
  );
}
