import { unreadableAnswer } from '../errors.js';
import type { ClaimView } from '../views.js';
import { grantOf } from './lease.js';

/**
 * The claim a `claimNext` answer holds, or null when the kernel had none.
 * @throws ServerError `internal` for an answer of another shape (see {@link claimOf}).
 */
export function claimOfNext(answer: unknown): ClaimView | null {
  const claim =
    typeof answer === 'object' && answer !== null
      ? (answer as { claim?: unknown }).claim
      : undefined;
  return claim === null ? null : claimOf(claim);
}

/**
 * A claim as the kernel answered it, checked for what the executor reads of
 * it before the row is run: its id, its lease, and the row's address, tool
 * and deadline. A claim it cannot read is not run (the lease the kernel
 * granted lapses by itself).
 * @throws ServerError `internal` for an answer of another shape.
 */
export function claimOf(answer: unknown): ClaimView {
  if (typeof answer === 'object' && answer !== null && grantOf(answer)) {
    const { claim_id, task } = answer as { claim_id?: unknown; task?: unknown };
    if (typeof claim_id === 'string' && isRunnableRow(task)) return answer as ClaimView;
  }
  throw unreadableAnswer(
    'the kernel answered a claim without its claim_id, lease or row (run_id, key, tool_name, deadline_at)',
    null,
  );
}

function isRunnableRow(task: unknown): boolean {
  if (typeof task !== 'object' || task === null) return false;
  const { run_id, key, tool_name, deadline_at } = task as Record<string, unknown>;
  return (
    typeof run_id === 'string' &&
    typeof key === 'string' &&
    typeof tool_name === 'string' &&
    (deadline_at === null || Number.isFinite(deadline_at))
  );
}
