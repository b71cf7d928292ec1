import type { CableMessage } from '@airlock/core';
import { isPosition } from '../internal/frames.js';
import { LiveSocket } from '../internal/socket.js';
import type { OperationsClient } from '../internal/transport.js';
import { cableUrl } from './cable-url.js';
import { isLastingFailure } from './lasting-failure.js';
import type { ExecutorOptions } from './types.js';

/** What the executor does with what its cable hears. */
export interface CableListeners {
  /** The cable said `ready` (it is connected, and the inbox is worth draining). */
  onReady(): void;
  /** A nudge about a tool or hook row nobody in the process leaves alone. */
  onWork(): void;
  /** A connection could not reach the kernel for now: `ready` rejects if it was the first, the cable keeps trying. */
  onUnreachable(error: Error): void;
  /** The cable gave up for good (see isLastingFailure). */
  onFatal(error: Error): void;
  /** What the application's `leaves` threw: the nudge is served as any other. */
  onListenerError(error: Error): void;
}

/** The executor's cable as the executor holds it. */
export interface ExecutorCable {
  /** Closes it for good. */
  close(): void;
  /** Whether the url reached the kernel once (the cable said `ready`): see isLastingFailure. */
  reachedKernel(): boolean;
}

/**
 * Opens the executor's cable: it resumes after the last nudge it saw, checks the kernel with
 * an inbox read before each reconnect, and gives up on a failure asking again cannot mend.
 */
export function openCable(
  options: ExecutorOptions,
  operations: OperationsClient,
  listeners: CableListeners,
): ExecutorCable {
  let lastSeq = 0;
  let reachedKernel = false;
  const cable = new LiveSocket({
    url: () => cableUrl(options, lastSeq),
    WebSocket: options.WebSocket,
    // A cable that never says ready is dropped and retried within the executor's timeout, as its requests are.
    handshakeMs: options.timeoutMs,
    check: async () => {
      try {
        await operations.executor.inbox.query({ limit: 1 });
      } catch (error) {
        // The first connection never got through (no answer, a 5xx, a rate limit): say so now;
        // the cable keeps retrying. A lasting failure ends the executor (onFatal) instead.
        if (!isLastingFailure(error, reachedKernel)) listeners.onUnreachable(error as Error);
        throw error;
      }
    },
    isPassing: (error) => !isLastingFailure(error, reachedKernel),
    onMessage: (received) => {
      // Core's CableMessageSchema declares what the kernel sends; a position is checked before
      // it is kept, since the cable resumes after it (NaN would be refused on every reconnect).
      const message = received as CableMessage;
      if (message.type === 'work_available') {
        if (isPosition(message.seq)) lastSeq = Math.max(lastSeq, message.seq);
        if (leaves(options, message, listeners)) return;
        if (message.kind === 'tool' || message.kind === 'hook') listeners.onWork();
      } else if (received.type === 'resync') {
        // The kernel no longer has what follows lastSeq (retention, a restore): start again at
        // the head, whose `ready` drains the inbox whole; resuming there would be refused for ever.
        lastSeq = 0;
      } else if (message.type === 'ready') {
        reachedKernel = true;
        if (isPosition(message.after)) lastSeq = Math.max(lastSeq, message.after);
        listeners.onReady();
      }
    },
    onFatal: (error) => listeners.onFatal(error),
  });
  cable.start();
  return { close: () => cable.close(), reachedKernel: () => reachedKernel };
}

/**
 * Whether the application leaves a nudge to someone in its process. Its throw is told and the
 * nudge served: thrown into the socket, it would end the cable, and no nudge would come again.
 */
function leaves(
  options: ExecutorOptions,
  nudge: { run_id: string; task_key: string },
  listeners: CableListeners,
): boolean {
  try {
    return Boolean(options.leaves?.(nudge));
  } catch (error) {
    listeners.onListenerError(error instanceof Error ? error : new Error(String(error)));
    return false;
  }
}
