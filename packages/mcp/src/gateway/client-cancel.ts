import type { TaskView } from '@airlock/sdk';
import { hasErrorCode, isKernelOutage, type KernelApi } from '../kernel-api.js';

/** What the session knows of a client's request: its abort and whether the client asked for it. */
export interface CancelableRequest {
  /** Aborted when the client cancels the call and when it goes away alike. */
  signal: AbortSignal;
  /** Whether an abort was the client's cancellation (`notifications/cancelled`). */
  cancelRequested: () => boolean;
}

/**
 * The client's cancellation of one call, told apart from a disconnect: the
 * MCP SDK aborts a request's signal on both, and tells the server of a
 * close only just after, so an abort heard is read once that turn has passed. A
 * canceled call must not start its tool; a disconnect leaves a granted call
 * to run (docs/mcp.md).
 */
export class ClientCancel {
  private readonly controller = new AbortController();
  private readonly decided: Promise<void>;

  constructor(private readonly request: CancelableRequest) {
    this.decided = new Promise<void>((resolve) => {
      const decide = () => {
        if (request.cancelRequested()) this.controller.abort(request.signal.reason);
        resolve();
      };
      // Aborted before: the close, if it was one, has been told by now.
      if (request.signal.aborted) decide();
      else request.signal.addEventListener('abort', () => setTimeout(decide, 0), { once: true });
    });
  }

  /** Aborted once the client canceled the call (never on a disconnect). */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Whether the client canceled the call by now; waits for an abort to be told apart first. */
  async requested(): Promise<boolean> {
    if (!this.request.signal.aborted) return false;
    await this.decided;
    return this.controller.signal.aborted;
  }
}

/** The most UTF-16 units of a client's reason kept (the kernel's 4096, less the words before it). */
const CLIENT_REASON_MAX = 4000;

/** A surrogate half without its other half: the kernel refuses such text. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Why a client canceled, in words the run's story shows: the `reason` of its
 * `notifications/cancelled` when it gave one, as text the kernel keeps (no NUL,
 * no lone surrogate, cut to {@link CLIENT_REASON_MAX} characters).
 */
export function cancelReason(abortReason: unknown): string {
  const clean =
    typeof abortReason === 'string'
      ? abortReason.replace(LONE_SURROGATE, '\uFFFD').replaceAll('\u0000', '').trim()
      : '';
  let said = '';
  // Whole characters only, counted as the kernel counts them (UTF-16 units).
  for (const character of clean) {
    if (said.length + character.length > CLIENT_REASON_MAX) break;
    said += character;
  }
  return said
    ? `the MCP client canceled the call: ${said}`
    : 'the MCP client canceled the call (notifications/cancelled)';
}

/** How often a cancellation the kernel could not take is sent again. */
const CANCEL_RETRY_MS = 1000;

/**
 * Cancels the row of a call its client canceled. While the kernel cannot
 * answer, the cancellation is sent again every second until it lands or
 * `until` aborts (the gateway stops): a parked row left to its clock could
 * otherwise still be approved and run after its client gave it up.
 * @returns true when the cancellation landed (or the row already runs or
 *   settled: nothing is left to cancel); false while it is still sent again.
 * @throws the kernel's refusal of the cancellation for another reason.
 */
export async function cancelRow(
  api: Pick<KernelApi, 'cancelCall'>,
  task: TaskView,
  until: AbortSignal,
  reason?: string | undefined,
): Promise<boolean> {
  try {
    await api.cancelCall(task.run_id, task.key, reason);
    return true;
  } catch (error) {
    if (hasErrorCode(error, 'task_not_waiting')) return true;
    // A kernel older than the reason refuses the field: the cancellation matters, not its why.
    if (reason !== undefined && hasErrorCode(error, 'invalid_input')) {
      return cancelRow(api, task, until);
    }
    if (!isKernelOutage(error)) throw error;
    if (until.aborted) return false;
    const retry = setTimeout(
      () => void cancelRow(api, task, until, reason).catch(() => {}),
      CANCEL_RETRY_MS,
    );
    until.addEventListener('abort', () => clearTimeout(retry), { once: true });
    return false;
  }
}
