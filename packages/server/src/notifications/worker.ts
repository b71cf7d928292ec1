import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import {
  claimDueDeliveries,
  type DeliveryRow,
  markAttemptFailed,
  markDelivered,
} from '../store/notifications.js';
import type { Store } from '../store/store.js';
import { type Backoff, DEFAULT_BACKOFF, retryDelayMs } from './backoff.js';
import type { ChannelSenders } from './channel-senders.js';

/** How the delivery worker runs. */
export interface DeliveryWorkerOptions {
  store: Store;
  senders: ChannelSenders;
  logger: Logger;
  /** How often due deliveries are looked for (besides a nudge after each enqueue); default 1 s. */
  pollMs?: number | undefined;
  /** How long a claimed delivery is this worker's; default 60 s. */
  leaseMs?: number | undefined;
  backoff?: Backoff | undefined;
  /** Attempts before a delivery is dead-lettered, unless its channel says; default 8. */
  maxAttempts?: number | undefined;
}

/** Deliveries one pass claims at most. */
const CLAIM_LIMIT = 32;

/**
 * The outbox's delivery worker: claims due deliveries with a lease (several
 * kernels may share a PostgreSQL store), sends each over its channel, and
 * records the outcome with a `notification.delivered` or
 * `notification.dead_lettered` event in the run's story. A failed attempt is
 * retried with exponential backoff and jitter; a kernel killed mid-send
 * leaves the lease to lapse and the delivery is sent again with the same
 * idempotency id (at least once).
 */
export class DeliveryWorker {
  private readonly owner = `worker_${randomBytes(6).toString('hex')}`;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;

  constructor(private readonly options: DeliveryWorkerOptions) {}

  /** Starts polling. */
  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.kick(), this.options.pollMs ?? 1000);
    this.timer.unref();
    this.kick();
  }

  /** Looks for due deliveries now (after an enqueue, say). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  /** Resolves once no pass is in flight. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Stops polling and waits for the pass in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  private async drain(): Promise<void> {
    try {
      for (;;) {
        const claimed = await claimDueDeliveries(this.options.store, {
          owner: this.owner,
          now: this.options.store.now(),
          leaseMs: this.options.leaseMs ?? 60_000,
          limit: CLAIM_LIMIT,
        });
        await Promise.all(claimed.map((delivery) => this.deliver(delivery)));
        if (claimed.length < CLAIM_LIMIT || this.stopped) return;
      }
    } catch (error) {
      if (!this.stopped) this.options.logger.error({ err: error }, 'notification pass failed');
    }
  }

  private async deliver(delivery: DeliveryRow): Promise<void> {
    const { store, senders, logger } = this.options;
    const attempts = delivery.attempts + 1;
    let externalRef: string | null = null;
    let failure: string | null = null;
    try {
      externalRef = await senders.send(delivery, store.now());
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
    const base = {
      workspace_id: delivery.workspace_id,
      run_id: delivery.run_id,
      task_key: delivery.task_key,
      principal: 'kernel',
    };
    const described = {
      delivery_id: delivery.id,
      channel: delivery.channel,
      channel_kind: delivery.channel_kind,
      notified: delivery.event_type,
      attempts,
    };
    if (failure === null) {
      await store.transaction(async (tx) => {
        const owned = await markDelivered(tx, {
          id: delivery.id,
          owner: this.owner,
          attempts,
          externalRef,
        });
        if (owned) tx.emit({ ...base, type: 'notification.delivered', data: described });
      });
      return;
    }
    const channel = senders.channelOf(delivery);
    const max = channel?.max_attempts ?? this.options.maxAttempts ?? 8;
    const dead = attempts >= max;
    const retryAt = dead
      ? null
      : store.now() + retryDelayMs(attempts, this.options.backoff ?? DEFAULT_BACKOFF);
    logger.warn(
      { delivery: delivery.id, channel: delivery.channel, attempts, dead, error: failure },
      'notification attempt failed',
    );
    await store.transaction(async (tx) => {
      const owned = await markAttemptFailed(tx, {
        id: delivery.id,
        owner: this.owner,
        attempts,
        error: failure,
        retryAt,
      });
      if (owned && dead) {
        tx.emit({
          ...base,
          type: 'notification.dead_lettered',
          data: { ...described, error: failure },
        });
      }
    });
  }
}
