import type { TaskView } from '@airlock/sdk';
import type { ProgressListener } from '../executor-bridge.js';

/** One `tools/call` as the session takes it. */
export interface CallRequest {
  name: string;
  input: unknown;
  /** The client's id for the call, kept on its row (none: one the kernel would refuse). */
  callId: string | undefined;
  signal: AbortSignal;
  cancelRequested: () => boolean;
  onWaiting?: WaitingListener | undefined;
  /** Told the server's progress while the call's tool runs on this process's bridge. */
  onProgress?: ProgressListener | undefined;
  /** The MCP client's W3C trace context (`_meta.traceparent`), when it sent one. */
  traceparent?: string | null | undefined;
}

/** What a caller hears while its call waits for a person. */
export type WaitingListener = (task: TaskView, elapsedMs: number) => void | Promise<void>;
