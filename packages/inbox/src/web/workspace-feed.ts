import type { FeedEvent, SocketStatus, Workspace } from '@airlock/sdk';
import { approvalsWords, callLine } from './format.js';
import type { RowFacts } from './list-row.js';

/** Events after which a row may have stopped waiting: its row goes at once. */
const SETTLING = new Set([
  'task.approved',
  'task.denied',
  'task.resolved',
  'task.expired',
  'task.canceled',
]);
/**
 * Events after which a row may wait (again), or waits changed (an edited
 * input): that one row is read. One more approval toward a quorum
 * (`task.approval_added`) carries its count and is applied without a read.
 */
const ARRIVING = new Set([
  'task.parked',
  'task.asked',
  'task.retried',
  'task.readdressed',
  'task.edited',
]);

/** How many rows' `task.created` facts are kept while they wait for their park. */
const CREATED_KEPT = 2000;

/** What the waiting list hears from the workspace's feed. */
export interface WaitingFeedHandlers {
  /** The feed's connection changed (`open` once it is live). */
  status(status: SocketStatus): void;
  /** The row `run/task` may have stopped waiting, as of `at` (epoch ms). */
  settled(key: string, at: number): void;
  /**
   * The row may wait (again): read it. A first park also brings what its row
   * shows (`preview`, from its `task.created` and `task.parked` events), so the
   * row can be painted before the read answers.
   */
  arriving(runId: string, taskKey: string, preview: RowFacts | null): void;
  /**
   * One more approval toward the quorum of the row `run/task`, which still
   * waits: `progress` is what its row now shows ("1 of 2 approvals"), and
   * `unreachable` whether too few members can still complete it (null: the
   * event does not say).
   */
  progressed(key: string, progress: string | null, unreachable: boolean | null): void;
  /** A change of policy of the workspace (`policy.changed`'s `change`: `credential_revoked`, …). */
  policyChanged(change: string): void;
}

type Created = { round: number; tool_name: string; created_at: number };

const record = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};

/**
 * The row a park shows, from the facts its `task.created` event gave and
 * the input and approvals needed its `task.parked` event froze ("0 of 2
 * approvals" when the approval policy asks several, and "too few approvers" when it says
 * the live members cannot give them); null when either is missing.
 */
export function previewOf(event: FeedEvent, created: Created | undefined): RowFacts | null {
  const data = record(event.data);
  const profile = record(data.effect_profile);
  if (!created || event.task_key === null || !('tool_input' in profile)) return null;
  // An older kernel's park says nothing of its quorum: one approval is assumed until it is read.
  const required = typeof data.approvals_required === 'number' ? data.approvals_required : 1;
  return {
    run_id: event.run_id,
    task_key: event.task_key,
    round: created.round,
    created_at: created.created_at,
    kind: 'approval',
    summary: callLine(created.tool_name, profile.tool_input, 160),
    progress: approvalsWords(0, required),
    // Absent on an older kernel's park and on one no policy rule covers: nothing to warn of.
    unreachable: data.approvals_reachable === false,
  };
}

/** What the row of a `task.approval_added` event shows now ("1 of 2 approvals"). */
export function progressOf(event: FeedEvent): string | null {
  const data = record(event.data);
  const { received, required } = data;
  return typeof received === 'number' && typeof required === 'number'
    ? approvalsWords(received, required)
    : null;
}

/**
 * Whether a `task.approval_added` event says too few members can complete
 * the quorum (a member revoked since the call parked: the feed says nothing
 * of a revoke itself, so the next approval is where the inbox hears it);
 * null from an older kernel's event, which does not say.
 */
export function unreachableOf(event: FeedEvent): boolean | null {
  const { reachable } = record(event.data);
  return typeof reachable === 'boolean' ? !reachable : null;
}

/**
 * Follows a workspace's lifecycle feed from now on and tells which rows may
 * have stopped waiting and which may wait; resolves once `signal` aborts.
 * @throws whatever the feed throws (a refused token, a failed connection).
 */
export async function followWaiting(
  workspace: Workspace,
  signal: AbortSignal,
  handlers: WaitingFeedHandlers,
): Promise<void> {
  const feed = workspace.feed({ after: 'latest', signal, onStatus: handlers.status });
  // A row's creation, kept until its first decision: a park then previews its row.
  const created = new Map<string, Created>();
  for await (const event of feed) {
    if (event.type === 'policy.changed') {
      const { change } = record(event.data);
      if (typeof change === 'string') handlers.policyChanged(change);
      continue;
    }
    if (event.task_key === null) continue;
    const key = `${event.run_id}/${event.task_key}`;
    if (event.type === 'task.created') {
      const data = record(event.data);
      created.set(key, {
        round: Number(data.round),
        tool_name: String(data.tool_name),
        created_at: event.created_at,
      });
      if (created.size > CREATED_KEPT) created.delete(created.keys().next().value as string);
      continue;
    }
    const facts = created.get(key);
    created.delete(key);
    if (SETTLING.has(event.type)) handlers.settled(key, event.created_at);
    else if (event.type === 'task.approval_added')
      handlers.progressed(key, progressOf(event), unreachableOf(event));
    else if (ARRIVING.has(event.type)) {
      const preview = event.type === 'task.parked' ? previewOf(event, facts) : null;
      handlers.arriving(event.run_id, event.task_key, preview);
    }
  }
}
