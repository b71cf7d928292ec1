import { randomBytes } from 'node:crypto';
import pino, { type Logger } from 'pino';
import { FailureStreak } from '../logging/failure-streak.js';
import type { KernelMetrics } from '../metrics/registry.js';
import { defaultProviders, type ProviderRegistry } from '../providers/registry.js';
import type { Store } from '../store/store.js';
import type { CallTracing } from '../tracing/call-tracing.js';
import type { KernelContext } from './context.js';
import { sweepOnce } from './loop/clocks.js';
import { abortModelRequests } from './loop/model-stop.js';
import { driveRun } from './loop/run-loop.js';
import { type RetentionOptions, RetentionPruner } from './retention/retention.js';
import { prepareSchemaChecks } from './stage/tool-input-schema.js';
import {
  DEFAULT_SETTLE_RESCAN_MS,
  forgetQueuedSettles,
  settleEveryWorkspaceSoon,
  settleQueued,
} from './verbs/policy-settle.js';
import { newSettleQueue } from './verbs/policy-settle-queue.js';

/** How a kernel is configured. */
export interface KernelOptions {
  store: Store;
  logger?: Logger | undefined;
  /** Park clock; default 24 h. */
  parkTtlMs?: number | undefined;
  /** Default executor lease; default 30 s. */
  defaultLeaseMs?: number | undefined;
  /** Longest executor lease; default 1 h. */
  maxLeaseMs?: number | undefined;
  /** How often the clocks are swept; default 250 ms. */
  sweepIntervalMs?: number | undefined;
  providers?: ProviderRegistry | undefined;
  /** Retention pruning (workspace policies); absent: no pruning. */
  retention?: RetentionOptions | undefined;
  /** Where metrics are recorded; none when absent. */
  metrics?: KernelMetrics | null | undefined;
  /** Where a call's spans go; none when absent. */
  tracing?: CallTracing | null | undefined;
  /**
   * How often the sweep looks at every workspace's approved parked rows for a call an approval
   * policy met but nobody settled (another kernel stopped between a put and its settle);
   * default 10 minutes. A kernel's start looks once anyway.
   */
  settleRescanMs?: number | undefined;
}

/** The default park clock: 24 hours. */
export const DEFAULT_PARK_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * The approval kernel of one process: owns the run loop, the clocks sweep and
 * the context every operation runs in. Several kernels may share one PostgreSQL.
 */
export class Kernel {
  readonly context: KernelContext;
  private readonly sweepIntervalMs: number;
  private readonly settleRescanMs: number;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<unknown> | undefined;
  private readonly sweepFailures: FailureStreak;
  private readonly driving = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private stopped = false;
  /** Applies workspaces' retention policies, started from the clock sweep. */
  readonly pruner: RetentionPruner | undefined;
  /**
   * Told when a credential was revoked or an application removed, so what they hold open here
   * ends now rather than at the next recheck: by this kernel's own revocations, and through the
   * feed hub by those another process committed in a workspace this one has feeds in.
   */
  readonly credentialEnds = new Set<() => void>();

  constructor(options: KernelOptions) {
    const logger = options.logger ?? pino({ level: 'silent' });
    this.sweepIntervalMs = options.sweepIntervalMs ?? 250;
    this.settleRescanMs = options.settleRescanMs ?? DEFAULT_SETTLE_RESCAN_MS;
    this.context = {
      store: options.store,
      logger,
      parkTtlMs: options.parkTtlMs ?? DEFAULT_PARK_TTL_MS,
      defaultLeaseMs: options.defaultLeaseMs ?? 30_000,
      maxLeaseMs: options.maxLeaseMs ?? 3_600_000,
      instanceId: randomBytes(6).toString('hex'),
      providers: options.providers ?? defaultProviders(),
      metrics: options.metrics ?? null,
      tracing: options.tracing ?? null,
      settles: newSettleQueue(),
      scheduleDrive: (runId) => {
        void this.drive(runId);
      },
    };
    this.pruner = options.retention
      ? new RetentionPruner(this.context, options.retention)
      : undefined;
    this.sweepFailures = new FailureStreak(this.context.logger, 'clock sweep');
    // Once per process, here rather than in the first request that declares a tool schema.
    prepareSchemaChecks();
  }

  /**
   * Starts the clocks sweep (and resumes runs left mid-step by a previous process, and approves
   * calls a policy change met that a previous process left waiting).
   */
  start(): void {
    this.stopped = false;
    settleEveryWorkspaceSoon(this.context);
    const tick = () => {
      if (this.stopped || this.sweeping) return;
      this.sweeping = this.sweep().finally(() => {
        this.sweeping = undefined;
      });
    };
    tick();
    this.timer = setInterval(tick, this.sweepIntervalMs);
    this.timer.unref();
  }

  /** Runs one sweep of every clock now; errors are logged (a streak of them once), never thrown. */
  async sweep(): Promise<void> {
    let failure: { error: unknown } | null = null;
    try {
      await sweepOnce(this.context);
    } catch (error) {
      failure = { error };
    }
    // A clock that failed holds neither the settling nor the pruning (neither throws).
    await settleQueued(this.context, {
      stopping: () => this.stopped,
      rescanMs: this.settleRescanMs,
    });
    this.pruner?.tick();
    if (failure === null) this.sweepFailures.succeeded();
    else if (!this.stopped) this.sweepFailures.failed(failure.error);
  }

  /**
   * Takes the run's next step if one is due, and resolves when it (and any
   * step it made due) has been taken by this process.
   */
  drive(runId: string): Promise<void> {
    // A stopped kernel takes no step, and keeps none in flight for idle() to wait on.
    if (this.stopped) return Promise.resolve();
    const running = this.driving.get(runId);
    if (running) {
      this.again.add(runId);
      return running;
    }
    const step = (async () => {
      try {
        do {
          this.again.delete(runId);
          if (this.stopped) return;
          await driveRun(this.context, runId);
        } while (this.again.has(runId));
      } catch (error) {
        if (!this.stopped) this.context.logger.error({ err: error, runId }, 'run step failed');
      } finally {
        // A step asked for while this one failed is not taken now (the failure is logged above).
        this.again.delete(runId);
        this.driving.delete(runId);
      }
    })();
    this.driving.set(runId, step);
    return step;
  }

  /** How many runs this process is taking a step of now. */
  get stepsInFlight(): number {
    return this.driving.size;
  }

  /** Resolves once no run step of this process is in flight (steps they make due included). */
  async idle(): Promise<void> {
    while (this.driving.size > 0) await Promise.allSettled([...this.driving.values()]);
  }

  /**
   * Stops the sweep and waits for in-flight steps to finish; a step waiting on
   * a model is aborted first (its round recorded as nothing), so a stop does
   * not wait for the slowest model.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    abortModelRequests(this.context);
    if (this.timer) clearInterval(this.timer);
    await this.sweeping;
    forgetQueuedSettles(this.context);
    await this.pruner?.stop();
    await Promise.allSettled([...this.driving.values()]);
  }
}
