import { RUN_STATES } from '@airlock/core';
import type { HearRunEnd } from '../kernel/loop/model-stop.js';
import type { FeedHub } from './hub.js';

/** The event types that end a run: `run.` and each state but `running`. */
const RUN_END_TYPES: ReadonlySet<string> = new Set(
  RUN_STATES.filter((state) => state !== 'running').map((state) => `run.${state}`),
);

/**
 * Hears a run's end through the feed hub: whoever committed it (this kernel
 * or another one sharing the database), the hub reads it from the log once
 * for the workspace. The hub listens for other kernels' commits only while
 * it has someone to tell, so a kernel with no model request in flight (and
 * no feed open) is not woken by them.
 */
export function runEndsHeardThrough(hub: FeedHub): HearRunEnd {
  return ({ workspaceId, runId, after }, onEnd) => {
    let heard = false;
    const subscription = hub.subscribe({
      workspaceId,
      runId,
      after,
      internal: true,
      deliver: (items) => {
        if (heard || !items.some((item) => RUN_END_TYPES.has(item.row.type))) return;
        heard = true;
        onEnd();
      },
    });
    return () => subscription.close();
  };
}
