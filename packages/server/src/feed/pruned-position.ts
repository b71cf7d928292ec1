import { AirlockError } from '../errors.js';
import { prunedPosition, runCreatedAt } from '../store/retention.js';
import type { Store } from '../store/store.js';

/** Where a subscriber asks to resume: a workspace (or one run of it) after a sequence number. */
export interface ResumePosition {
  workspaceId: string;
  runId?: string | null | undefined;
  after: number;
}

/**
 * The refusal for a subscriber that would resume where retention pruned
 * events it would have received, or null when nothing it would read is
 * gone. A whole-workspace subscriber behind the highest pruned sequence
 * number must resynchronise; one run's subscriber only when that run is
 * older than what retention has already cut (a live run's events are young).
 */
export async function prunedResume(
  store: Store,
  position: ResumePosition,
): Promise<AirlockError | null> {
  const { prunedThrough, eventsPrunedBefore } = await prunedPosition(store, position.workspaceId);
  if (position.after >= prunedThrough) return null;
  if (position.runId) {
    const created = await runCreatedAt(store, position.workspaceId, position.runId);
    if (created !== undefined && created >= eventsPrunedBefore) return null;
  }
  return new AirlockError(
    'feed_position_pruned',
    `events after ${position.after} up to ${prunedThrough} were pruned by the workspace's retention policy: ` +
      `read the current state again, then resume with after=${prunedThrough} or after=latest`,
  );
}
