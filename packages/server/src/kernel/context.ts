import type { Logger } from 'pino';
import type { KernelMetrics } from '../metrics/registry.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { Store } from '../store/store.js';
import type { CallTracing } from '../tracing/call-tracing.js';
import type { SettleQueue } from './verbs/policy-settle-queue.js';

/** What every kernel operation needs: the store, the deployment's clocks, and the loop. */
export interface KernelContext {
  store: Store;
  logger: Logger;
  /** How long a park waits for a person before it expires. */
  parkTtlMs: number;
  /** Lease granted by a claim that names none. */
  defaultLeaseMs: number;
  /** Longest lease a claim or heartbeat may ask for. */
  maxLeaseMs: number;
  /** Identifies this process as a lease owner. */
  instanceId: string;
  providers: ProviderRegistry;
  /** Where the kernel records its metrics; null when metrics are off. */
  metrics: KernelMetrics | null;
  /** Where the spans of a call's path go; null when tracing is off. */
  tracing: CallTracing | null;
  /**
   * What this kernel still has to settle after approval policy changes: its own, emptied and
   * closed when it stops (see verbs/policy-settle.ts).
   */
  settles: SettleQueue;
  /** Asks the run loop to take the run's next step soon. */
  scheduleDrive(runId: string): void;
}
