import { setTimeout as sleep } from 'node:timers/promises';
import {
  ADVISORY_LOCK_KEYS,
  type AdvisoryLockHold,
  tryAdvisoryLock,
} from '../../store/advisory-lock.js';
import {
  activeRetentionPolicies,
  markEventsPrunedBefore,
  type RetentionPolicyRow,
} from '../../store/retention.js';
import { forgetSweep, recordedSweeps, type SweepKind } from '../../store/retention-sweeps.js';
import type { KernelContext } from '../context.js';
import { ClockJumps, type ClockReadings, SYSTEM_CLOCKS } from './clock-jumps.js';
import { AUDIT_TYPES, EventSweep } from './event-sweep.js';
import { PassFailures, type RetentionFailure } from './pass-failures.js';
import { DEFAULT_PRUNING_PACE, PruningPace } from './pruning-pace.js';
import { RetentionExportError } from './retention-export.js';
import { type PruningBudgets, pruneRuns } from './retention-runs.js';
import { PruningSteps, RetentionPolicyChangedError } from './retention-step.js';
import { DEFAULT_UNIT_BUDGET_MS, StepBudget } from './step-budget.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A failure of one workspace's export (its file or folder cannot be written), which the
 * other workspaces' pruning may not share; any other (the store, the advisory lock) ends the
 * pass at once, as every workspace after would meet it too.
 */
function isExportFailure(error: unknown): boolean {
  if (error instanceof RetentionExportError) return true;
  const { path, syscall } = (error ?? {}) as { path?: unknown; syscall?: unknown };
  return typeof path === 'string' && typeof syscall === 'string';
}

/** How the kernel prunes: where it exports, how often, and how much per transaction. */
export interface RetentionOptions {
  /** Where what is pruned is written first (JSON lines per workspace and day). */
  exportDir: string;
  /** Least time between two pruning passes; default one minute. */
  intervalMs?: number | undefined;
  /** Most rows one delete transaction touches; default 500. */
  batchRows?: number | undefined;
  /** Most runs read together (fewer when their rows exceed `batchRows`); default 100. */
  batchRuns?: number | undefined;
  /**
   * How long one unit of work's statements may run, in milliseconds; each
   * kind of step takes fewer rows than `batchRows` when that many would run
   * longer (see StepBudget). Default 3.
   */
  unitBudgetMs?: number | undefined;
  /**
   * The share of wall time a pass works (from 0.01 to 1): after each
   * step it rests the remainder (see PruningPace). Default 0.25.
   */
  pace?: number | undefined;
  /** How a pass rests (tests watch it); default a timer. */
  rest?: ((ms: number) => Promise<unknown>) | undefined;
  /** The machine's wall and monotonic clocks, to tell a clock jump (see ClockJumps); tests set them. */
  clocks?: ClockReadings | undefined;
}

/** What one pruning pass removed. */
export interface PruneReport {
  events: number;
  runs: number;
  audit: number;
}

/**
 * Applies every workspace's retention policy: non-audit events, then ended
 * runs (with their task rows and remaining events), then audit records, each
 * older than its window, oldest first, in bounded transactions; what goes is
 * appended to the export directory first, and recorded with its delete
 * (see PruningSteps), each unit of work sized to a time budget (see StepBudget), so each pruned row is exported exactly once, a kill
 * between the two included. Where each sweep of events stands is kept in
 * the store (see EventSweep), so a restarted kernel reads only the log
 * written since the last pass of any process. A pass is started from the kernel's clock sweep
 * at most once per interval and never overlaps another, in this process or
 * (on PostgreSQL) in any other kernel on the database.
 */
export class RetentionPruner {
  private lastPass = Number.NEGATIVE_INFINITY;
  private running: Promise<PruneReport> | undefined;
  private stopped = false;
  private readonly intervalMs: number;
  private readonly batchRows: number;
  private readonly batchRuns: number;
  /** Each kind of step's size, kept from pass to pass (see StepBudget). */
  private readonly budgets: PruningBudgets;
  /** How much of the time a pass works (see PruningPace). */
  private readonly pace: PruningPace;
  private readonly stopping = new AbortController();
  /** Sweeps each kind of a workspace's events from where the store says it stands. */
  private readonly sweeps: EventSweep;
  /** The failure passes keep meeting, logged when it begins, changes or clears. */
  private readonly failures: PassFailures;
  /** How far the clock jumped ahead of the time that passed while this process ran. */
  private readonly clockJumps: ClockJumps;
  /** The current pass's: how far behind the store's clock it prunes. */
  private behindClockMs = 0;

  constructor(
    private readonly ctx: KernelContext,
    private readonly options: RetentionOptions,
  ) {
    this.intervalMs = options.intervalMs ?? 60_000;
    this.batchRows = options.batchRows ?? 500;
    this.batchRuns = options.batchRuns ?? 100;
    const budget = {
      maxRows: this.batchRows,
      budgetMs: options.unitBudgetMs ?? DEFAULT_UNIT_BUDGET_MS,
    };
    this.budgets = {
      events: new StepBudget(budget),
      stamps: new StepBudget(budget),
      runs: new StepBudget(budget),
    };
    // A rest ends at once when the kernel stops.
    const rest = (ms: number) =>
      sleep(ms, undefined, { signal: this.stopping.signal }).catch(() => {});
    this.pace = new PruningPace(options.pace ?? DEFAULT_PRUNING_PACE, options.rest ?? rest);
    this.failures = new PassFailures(ctx.logger, () => ctx.store.now());
    this.clockJumps = new ClockJumps(options.clocks ?? SYSTEM_CLOCKS, ctx.logger);
    this.sweeps = new EventSweep(ctx, {
      batchRows: this.batchRows,
      budget: this.budgets.events,
      stopped: () => this.stopped,
    });
  }

  /** Starts a pass when one is due and none runs; never waits for it. */
  tick(): void {
    if (this.stopped || this.running) return;
    const sinceLastPass = this.ctx.store.now() - this.lastPass;
    // A clock set back since the last pass (one that ran ahead, put right) would hold pruning off until it caught up.
    if (sinceLastPass >= 0 && sinceLastPass < this.intervalMs) return;
    // Logged by the pass (see PassFailures).
    void this.pruneNow().catch(() => {});
  }

  /**
   * What fails the passes while they keep failing (an export directory made unwritable): its
   * message, since when, and how many passes in a row; null while they succeed.
   */
  get failure(): RetentionFailure | null {
    return this.failures.current;
  }

  /**
   * Runs a pass now and reports what it removed; nothing when another kernel
   * process on the same PostgreSQL database is running one. A pass of this
   * process already running may have read the policies before the caller
   * changed them, so it is waited for first and not taken as this one.
   */
  async pruneNow(): Promise<PruneReport> {
    while (this.running) await this.running.catch(() => {});
    this.running = (async () => {
      try {
        this.lastPass = this.ctx.store.now();
        const outcome = await tryAdvisoryLock(
          this.ctx.store,
          ADVISORY_LOCK_KEYS.retentionPass,
          (hold) => this.pass(hold),
        );
        if (!outcome.held) {
          this.ctx.logger.debug('retention pass skipped: another kernel process runs one');
          return { events: 0, runs: 0, audit: 0 };
        }
        this.failures.passed();
        return outcome.value;
      } catch (error) {
        if (!this.stopped) this.failures.failed(error);
        throw error;
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  private async pass(hold: AdvisoryLockHold): Promise<PruneReport> {
    const total: PruneReport = { events: 0, runs: 0, audit: 0 };
    this.pace.start();
    // A clock set ahead while the kernel ran would prune rows younger than their window.
    this.behindClockMs = this.clockJumps.read();
    const policies = await activeRetentionPolicies(this.ctx.store);
    // A workspace's policy gone, or one of its windows: what was swept is read again when set.
    const swept = new Set(
      policies.flatMap((policy) => [
        ...(policy.events_days === null ? [] : [`events ${policy.workspace_id}`]),
        ...(policy.audit_days === null ? [] : [`audit ${policy.workspace_id}`]),
      ]),
    );
    for (const key of await recordedSweeps(this.ctx.store)) {
      if (swept.has(key)) continue;
      const [kind, workspaceId] = key.split(' ') as [SweepKind, string];
      await forgetSweep(this.ctx.store, workspaceId, kind);
    }
    let exportFailure: unknown;
    for (const policy of policies) {
      if (this.stopped) break;
      try {
        const report = await this.pruneWorkspace(policy, hold);
        total.events += report.events;
        total.runs += report.runs;
        total.audit += report.audit;
      } catch (error) {
        // One workspace's export folder (a file in its place, made read-only) held every workspace after it back.
        if (!isExportFailure(error)) throw error;
        exportFailure ??= error;
      }
    }
    if (total.events + total.runs + total.audit > 0) {
      this.ctx.logger.info(total, 'retention pruned');
    }
    if (exportFailure !== undefined) throw exportFailure;
    return total;
  }

  /** Stops between two batches and waits for the pass in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    await this.running?.catch(() => {});
  }

  /**
   * Prunes one workspace by its policy; stops (keeping what it reports so far) when the
   * policy is changed meanwhile, for the next pass to apply the new one.
   */
  private async pruneWorkspace(
    policy: RetentionPolicyRow,
    hold: AdvisoryLockHold,
  ): Promise<PruneReport> {
    const report: PruneReport = { events: 0, runs: 0, audit: 0 };
    try {
      await this.prunePolicy(policy, hold, report);
    } catch (error) {
      if (!(error instanceof RetentionPolicyChangedError)) throw error;
      this.ctx.logger.info(
        { workspace: policy.workspace_id },
        'retention: the policy changed during the pass; the next pass prunes by the new one',
      );
    }
    return report;
  }

  private async prunePolicy(
    policy: RetentionPolicyRow,
    hold: AdvisoryLockHold,
    report: PruneReport,
  ): Promise<void> {
    const now = this.ctx.store.now() - this.behindClockMs;
    const ws = policy.workspace_id;
    const steps = await PruningSteps.open({
      ctx: this.ctx,
      hold,
      exportDir: this.options.exportDir,
      workspaceId: ws,
      pace: this.pace,
      policyUpdatedAt: Number(policy.updated_at),
    });
    if (policy.events_days !== null) {
      const cutoff = now - policy.events_days * DAY_MS;
      const swept = await this.sweeps.sweep(steps, ws, cutoff, {
        kind: 'events',
        types: { except: AUDIT_TYPES },
        prunedBefore: Number(policy.events_pruned_before),
      });
      report.events += swept.pruned;
      // Stored for the next process: every non-audit event before it is gone, a live run's kept ones being after it.
      const prunedBefore = Math.min(cutoff, swept.firstKeptAt ?? cutoff);
      if (!this.stopped) await markEventsPrunedBefore(this.ctx.store, ws, prunedBefore);
    }
    if (policy.runs_days !== null) {
      report.runs += await pruneRuns({
        ctx: this.ctx,
        steps,
        workspaceId: ws,
        cutoff: now - policy.runs_days * DAY_MS,
        batchRows: this.batchRows,
        batchRuns: this.batchRuns,
        budgets: this.budgets,
        stopped: () => this.stopped,
      });
    }
    if (policy.audit_days !== null) {
      const swept = await this.sweeps.sweep(steps, ws, now - policy.audit_days * DAY_MS, {
        kind: 'audit',
        types: { only: AUDIT_TYPES },
        prunedBefore: 0,
      });
      report.audit += swept.pruned;
    }
  }
}
