import type { SocketStatus, Workspace } from '@airlock/sdk';

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
 * input, one more approval toward its quorum): that one row is read.
 */
const ARRIVING = new Set([
  'task.parked',
  'task.asked',
  'task.retried',
  'task.readdressed',
  'task.edited',
  'task.approval_added',
]);

/** What the waiting list hears from the workspace's feed. */
export interface WaitingFeedHandlers {
  /** The feed's connection changed (`open` once it is live). */
  status(status: SocketStatus): void;
  /** The row `run/task` may have stopped waiting, as of `at` (epoch ms). */
  settled(key: string, at: number): void;
  /** The row may wait (again): read it. */
  arriving(runId: string, taskKey: string): void;
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
  for await (const event of feed) {
    if (event.task_key === null) continue;
    if (SETTLING.has(event.type))
      handlers.settled(`${event.run_id}/${event.task_key}`, event.created_at);
    else if (ARRIVING.has(event.type)) handlers.arriving(event.run_id, event.task_key);
  }
}
