import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Kernel } from '../kernel/kernel.js';
import { type Backoff, DEFAULT_BACKOFF } from './backoff.js';
import { ChannelSenders } from './channel-senders.js';
import type { NotificationsConfig } from './config.js';
import { notificationRoutes } from './http-routes.js';
import { linkDecisionGuard } from './link-decision-guard.js';
import { outboxEnqueue } from './outbox.js';
import { DeliveryWorker } from './worker.js';

/** The delivery worker's tuning (tests shorten it). */
export interface DeliveryTuning {
  pollMs?: number | undefined;
  leaseMs?: number | undefined;
  backoff?: Backoff | undefined;
  maxAttempts?: number | undefined;
  stopGraceMs?: number | undefined;
}

/** A kernel's notifications: the outbox enqueue, the worker and the channels' HTTP routes. */
export interface Notifications {
  worker: DeliveryWorker;
  routes: (req: IncomingMessage, res: ServerResponse, url: URL) => boolean;
  close(): Promise<void>;
}

/**
 * Starts notifications for a kernel: registers the outbox enqueue on its
 * store (in the transaction of each event) and starts the delivery worker.
 */
export function startNotifications(options: {
  kernel: Kernel;
  config: NotificationsConfig;
  logger: Logger;
  tuning?: DeliveryTuning | undefined;
}): Notifications {
  const { kernel, config, logger } = options;
  const store = kernel.context.store;
  const senders = new ChannelSenders(config, logger);
  const fromFile = config.delivery ?? {};
  const worker = new DeliveryWorker({
    store,
    senders,
    logger,
    pollMs: fromFile.poll_ms,
    leaseMs: fromFile.lease_ms,
    backoff:
      fromFile.backoff_base_ms === undefined && fromFile.backoff_cap_ms === undefined
        ? undefined
        : {
            baseMs: fromFile.backoff_base_ms ?? DEFAULT_BACKOFF.baseMs,
            capMs: fromFile.backoff_cap_ms ?? DEFAULT_BACKOFF.capMs,
          },
    ...options.tuning,
  });
  const removeHook = store.onUnitEvents(outboxEnqueue(config, () => worker.kick()));
  // An email link's deny checks, in its own transaction, that the mail's approve was not used.
  const removeGuard = store.onUnitEvents(linkDecisionGuard());
  worker.start();
  return {
    worker,
    routes: notificationRoutes({ ctx: kernel.context, config, senders, logger }),
    async close() {
      removeHook();
      removeGuard();
      await worker.stop();
      senders.close();
    },
  };
}
