import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { FailureStreak } from '../logging/failure-streak.js';
import { hastenChannel } from '../store/gone-channels.js';
import {
  claimDueDeliveries,
  type DeliveryRow,
  enqueueDeliveries,
  markAttemptFailed,
  markDelivered,
} from '../store/notifications.js';
import type { Store } from '../store/store.js';
import { type Backoff, DEFAULT_BACKOFF, DEFAULT_MAX_ATTEMPTS, retryDelayMs } from './backoff.js';
import type { ChannelSenders, SentRef } from './channel-senders.js';
import {
  earlierMessage,
  hastenSettlesOf,
  MESSAGE_SETTLED,
  NoticeNotPosted,
  type SettleTarget,
  settleTarget,
} from './message-settle.js';
import { noticeNoLongerAsks } from './notice-standing.js';
import { PartlySent, reachedRef } from './partly-sent.js';
import { ChannelDisabled, goneMarkOf, ReceiverGone, refuseIfDisabled } from './receiver-gone.js';
import { retireLater } from './retire-later.js';

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
  /** Attempts before a delivery is dead-lettered, unless its channel says; default 24 (backoff.ts). */
  maxAttempts?: number | undefined;
  /** How long stop() waits for sends in flight before it cuts them short; default 5 s. */
  stopGraceMs?: number | undefined;
}

/** Sends in flight at most, all channels together. */
const MAX_IN_FLIGHT = 32;
/** Sends in flight of one channel before its deliveries wait (soft: one claim may add as many). */
const PER_CHANNEL = 4;
/** The longest an attempt may take, whatever the lease. */
const MAX_ATTEMPT_MS = 30_000;

/**
 * How long one attempt may take: half the lease, so that its outcome is
 * recorded while the lease still holds and no other kernel sends it too.
 */
export function attemptDeadlineMs(leaseMs: number): number {
  return Math.min(MAX_ATTEMPT_MS, Math.floor(leaseMs / 2));
}

/** Why an attempt was cut short; `stopping` when the worker stopped, not the receiver's fault. */
class AttemptCut extends Error {
  constructor(
    message: string,
    readonly stopping: boolean,
  ) {
    super(message);
  }
}

/** Settles once `work` did or `ms` passed, whichever comes first. */
async function boundedWait(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const over = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([work, over]);
  clearTimeout(timer);
}

/** One send in flight. */
interface InFlight {
  delivery: DeliveryRow;
  controller: AbortController;
  done: Promise<void>;
}

/**
 * The outbox's delivery worker: claims due deliveries with a lease (several
 * kernels may share a PostgreSQL store), sends each over its channel, and
 * records the outcome with a `notification.delivered` or
 * `notification.dead_lettered` event in the run's story. Each send runs on
 * its own with a deadline below the lease, so a slow receiver holds back
 * neither other channels nor shutdown. A failed attempt is retried with
 * exponential backoff and jitter; a kernel killed mid-send leaves the lease
 * to lapse and the delivery is sent again with the same idempotency id (at
 * least once).
 */
export class DeliveryWorker {
  private readonly owner = `worker_${randomBytes(6).toString('hex')}`;
  private readonly inFlight = new Map<string, InFlight>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private readonly passFailures: FailureStreak;

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.passFailures = new FailureStreak(options.logger, 'notification pass');
  }

  private get leaseMs(): number {
    return this.options.leaseMs ?? 60_000;
  }

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
    this.running = this.claimPass().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  /** Resolves once no claim pass and no send is in flight. */
  async idle(): Promise<void> {
    while (this.running || this.inFlight.size > 0) {
      await Promise.all([this.running, ...[...this.inFlight.values()].map((s) => s.done)]);
    }
  }

  /**
   * Stops polling, waits for the sends in flight up to the grace, then cuts
   * the rest short: each is cancelled and, once it settled, recorded as a
   * failed attempt due again at once, for this kernel after a restart or for
   * another sharing the store. A send still unsettled a grace after its cut
   * (a sender that ignores the signal) is not waited for, and stays unrecorded
   * until it settles: meanwhile its delivery is due again only when the lease lapses.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
    const sends = () => Promise.all([...this.inFlight.values()].map((s) => s.done));
    await boundedWait(sends(), this.options.stopGraceMs ?? 5000);
    for (const send of this.inFlight.values()) {
      send.controller.abort(new AttemptCut('the kernel stopped during the attempt', true));
    }
    await boundedWait(sends(), this.options.stopGraceMs ?? 5000);
  }

  /** Claims what the free room allows, leaving out channels with enough sends in flight. */
  private async claimPass(): Promise<void> {
    try {
      for (;;) {
        const room = MAX_IN_FLIGHT - this.inFlight.size;
        if (room <= 0 || this.stopped) return;
        const limit = Math.min(room, PER_CHANNEL);
        const claimed = await claimDueDeliveries(this.options.store, {
          owner: this.owner,
          now: this.options.store.now(),
          leaseMs: this.leaseMs,
          limit,
          skipChannels: this.busyChannels(),
          // One still being sent here, whose lease lapsed meanwhile, is not sent beside itself.
          skipIds: [...this.inFlight.keys()],
        });
        for (const delivery of claimed) this.launch(delivery);
        if (claimed.length < limit) break;
      }
      this.passFailures.succeeded();
    } catch (error) {
      if (!this.stopped) this.passFailures.failed(error);
    }
  }

  private busyChannels(): { workspace_id: string; channel: string }[] {
    const counts = new Map<string, { workspace_id: string; channel: string; n: number }>();
    for (const { delivery } of this.inFlight.values()) {
      const key = JSON.stringify([delivery.workspace_id, delivery.channel]);
      const entry = counts.get(key) ?? { ...delivery, n: 0 };
      entry.n += 1;
      counts.set(key, entry);
    }
    return [...counts.values()]
      .filter((entry) => entry.n >= PER_CHANNEL)
      .map(({ workspace_id, channel }) => ({ workspace_id, channel }));
  }

  private launch(delivery: DeliveryRow): void {
    const controller = new AbortController();
    const deadline = attemptDeadlineMs(this.leaseMs);
    const timer = setTimeout(
      () =>
        controller.abort(
          new AttemptCut(`no answer within the attempt's deadline of ${deadline} ms`, false),
        ),
      deadline,
    );
    const done = this.deliver(delivery, controller.signal)
      .catch((error: unknown) =>
        this.options.logger.error({ err: error, delivery: delivery.id }, 'notification failed'),
      )
      .finally(() => {
        clearTimeout(timer);
        if (this.inFlight.get(delivery.id)?.done === done) this.inFlight.delete(delivery.id);
        this.kick();
      });
    this.inFlight.set(delivery.id, { delivery, controller, done });
  }

  /**
   * Sends a notice, or settles the message of an earlier one (nothing to do: null); `unretired`,
   * an earlier message of the notice Slack did not retire now (retried through the outbox).
   */
  private async send(
    delivery: DeliveryRow,
    signal: AbortSignal,
  ): Promise<{ ref: SentRef; unretired?: SettleTarget | undefined }> {
    const { store, senders } = this.options;
    if (delivery.event_type !== MESSAGE_SETTLED) {
      await refuseIfDisabled(store, delivery, senders.channelOf(delivery));
      // Its call may have stopped waiting meanwhile, or unseen (decided by a kernel without Slack, pruned).
      const noLongerAsks =
        delivery.channel_kind === 'webhook' ? undefined : await noticeNoLongerAsks(store, delivery);
      const sent = await senders.send(delivery, { now: store.now(), signal, noLongerAsks });
      // Sent again: the message it was posted as before loses its buttons once a newer one exists
      // (retired first, a post Slack never took left it pointing at nothing).
      const earlier = earlierMessage(delivery);
      const retired = earlier ? await this.retire(delivery, earlier, signal) : true;
      return { ref: sent, unretired: retired ? undefined : earlier };
    }
    const target = await settleTarget(store, delivery);
    if (target?.retire) {
      await senders.retire(delivery, target, signal);
      return { ref: null };
    }
    return { ref: target ? await senders.settle(delivery, target, signal) : null };
  }

  /**
   * Retires a notice's earlier message after its new one was posted; false when Slack refused.
   * Never throws: the post landed, and failing the attempt would post the notice once more.
   */
  private async retire(
    delivery: DeliveryRow,
    earlier: SettleTarget,
    signal: AbortSignal,
  ): Promise<boolean> {
    try {
      await this.options.senders.retire(delivery, earlier, signal);
      return true;
    } catch (error) {
      this.options.logger.warn(
        { err: error, delivery: delivery.id },
        'the message of a notice sent again was not retired: retried through the outbox',
      );
      return false;
    }
  }

  private async deliver(delivery: DeliveryRow, signal: AbortSignal): Promise<void> {
    const { store, senders, logger } = this.options;
    const attempts = delivery.attempts + 1;
    let externalRef: string | null = null;
    let unretired: SettleTarget | undefined;
    let failure: string | null = null;
    let postponed: NoticeNotPosted | null = null;
    let reached: string | null = null;
    let stopping = false;
    // Not sent (a 410 Gone disabled the channel): dead at once, with no attempt counted.
    let disabled = false;
    let gone = false;
    try {
      // Awaited to the end, not raced with the signal: the senders cancel their
      // request on it, and only a send that settled may be recorded failed and
      // become due again (one still in flight could land beside the retry).
      ({ ref: externalRef, unretired } = await this.send(delivery, signal));
    } catch (error) {
      const cause: unknown = signal.aborted ? signal.reason : error;
      if (cause instanceof NoticeNotPosted) postponed = cause;
      // Cut short or not, the recipients already written to were reached.
      if (error instanceof PartlySent) reached = reachedRef(error.reached);
      failure = cause instanceof Error ? cause.message : String(cause);
      stopping = cause instanceof AttemptCut && cause.stopping;
      disabled = cause instanceof ChannelDisabled;
      gone = cause instanceof ReceiverGone;
    }
    const counted = disabled ? delivery.attempts : attempts;
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
      attempts: counted,
    };
    if (failure === null) {
      await store.transaction(async (tx) => {
        const owned = await markDelivered(tx, {
          id: delivery.id,
          owner: this.owner,
          attempts,
          externalRef,
        });
        if (!owned) return;
        tx.emit({ ...base, type: 'notification.delivered', data: described });
        await hastenSettlesOf(tx, delivery);
        if (unretired) await enqueueDeliveries(tx, [retireLater(delivery, unretired, tx.now)]);
      });
      return;
    }
    if (postponed) {
      // A settle whose notice is not posted yet: no attempt of its own, due after the notice's.
      const retryAt =
        Math.max(store.now(), postponed.noticeDueAt) +
        retryDelayMs(1, this.options.backoff ?? DEFAULT_BACKOFF);
      await store.transaction((tx) =>
        markAttemptFailed(tx, {
          id: delivery.id,
          owner: this.owner,
          attempts: delivery.attempts,
          error: postponed.message,
          retryAt,
        }),
      );
      return;
    }
    const channel = senders.channelOf(delivery);
    const max = channel?.max_attempts ?? this.options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    // A send cut short by a shutdown is no fault of the receiver: due again at once, never dead.
    const dead = gone || disabled || (!stopping && attempts >= max);
    // The receiver said its endpoint is gone: the channel is disabled at this url (receiver-gone.ts).
    const goneRef = gone ? goneMarkOf(channel) : undefined;
    const retryAt = dead
      ? null
      : stopping
        ? store.now()
        : store.now() + retryDelayMs(attempts, this.options.backoff ?? DEFAULT_BACKOFF);
    logger.warn(
      { delivery: delivery.id, channel: delivery.channel, attempts, dead, error: failure },
      'notification attempt failed',
    );
    if (goneRef !== undefined) {
      logger.error(
        { delivery: delivery.id, channel: delivery.channel, workspace: delivery.workspace_id },
        'webhook channel disabled: its receiver answered 410 Gone',
      );
    }
    await store.transaction(async (tx) => {
      const owned = await markAttemptFailed(tx, {
        id: delivery.id,
        owner: this.owner,
        // A cut by a shutdown does not count toward the dead letter.
        attempts: stopping ? delivery.attempts : counted,
        error: failure,
        retryAt,
        // Whom the attempt reached, so that the next writes only to the others.
        ...(reached === null ? {} : { externalRef: reached }),
        ...(goneRef === undefined ? {} : { externalRef: goneRef }),
      });
      // The channel's other notices are dead-lettered as disabled now, not after their backoff.
      if (owned && goneRef !== undefined) await hastenChannel(tx, delivery);
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
