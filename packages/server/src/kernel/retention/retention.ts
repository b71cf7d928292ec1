import { setTimeout as sleep } from 'node:timers/promises';
import { AUDIT_EVENT_TYPES, auditRecord } from '../../audit/audit-records.js';
import {
  ADVISORY_LOCK_KEYS,
  type AdvisoryLockHold,
  tryAdvisoryLock,
} from '../../store/advisory-lock.js';
import {
  activeRetentionPolicies,
  deleteEvents,
  type EventTypes,
  eventsToPrune,
  lastSeqBefore,
  liveRunsAmong,
  markEventsPrunedBefore,
  type RetentionPolicyRow,
  runEventsToPrune,
} from '../../store/retention.js';
import { tasksOfRuns } from '../../store/retention-runs.js';
import type { RunEventTable } from '../../store/schema.js';
import type { KernelContext } from '../context.js';
import { eventView } from '../views.js';
import { DEFAULT_PRUNING_PACE, PruningPace } from './pruning-pace.js';
import { type PruningBudgets, pruneRuns } from './retention-runs.js';
import { PruningSteps } from './retention-step.js';
import { DEFAULT_UNIT_BUDGET_MS, StepBudget } from './step-budget.js';

const DAY_MS = 24 * 60 * 60 * 1000;

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
}

/** What one pruning pass removed. */
export interface PruneReport {
  events: number;
  runs: number;
  audit: number;
}

const AUDIT_TYPES = [...AUDIT_EVENT_TYPES];

/** The two kinds of events a pass sweeps by their own window: lifecycle events and audit records. */
type EventKind = 'events' | 'audit';

/**
 * How far a pass of this process swept one kind of a workspace's events,
 * kept from pass to pass so the next one reads only the log written since:
 * every event of that kind up to `through` is gone, except those of the
 * `held` runs, which had not ended when the sweep read them. Each held run
 * is remembered by its first kept event; once it has ended, its kept
 * events are read again by the run's own index and go.
 */
interface SweptRange {
  through: number;
  held: Map<string, { seq: number; createdAt: number }>;
}

/**
 * Applies every workspace's retention policy: non-audit events, then ended
 * runs (with their task rows and remaining events), then audit records, each
 * older than its window, oldest first, in bounded transactions; what goes is
 * appended to the export directory first, and recorded with its delete
 * (see PruningSteps), each unit of work sized to a time budget (see StepBudget), so each pruned row is exported exactly once, a kill
 * between the two included. A pass is started from the kernel's clock sweep
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
  /**
   * How far each kind of each workspace's events was swept, by `<kind>
   * <workspace>` (see SweptRange). Memory only: a new process starts from
   * the stored mark (the oldest event kept for a live run) for lifecycle
   * events and from the log's start for audit records, in the same bounded batches.
   */
  private readonly swept = new Map<string, SweptRange>();

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
  }

  /** Starts a pass when one is due and none runs; never waits for it. */
  tick(): void {
    if (this.stopped || this.running) return;
    if (this.ctx.store.now() - this.lastPass < this.intervalMs) return;
    void this.pruneNow().catch((error: unknown) => {
      if (!this.stopped) this.ctx.logger.error({ err: error }, 'retention pass failed');
    });
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
        return outcome.value;
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  private async pass(hold: AdvisoryLockHold): Promise<PruneReport> {
    const total: PruneReport = { events: 0, runs: 0, audit: 0 };
    this.pace.start();
    const policies = await activeRetentionPolicies(this.ctx.store);
    // A workspace's policy gone, or one of its windows: what was swept is read again when set.
    const swept = new Set(
      policies.flatMap((policy) => [
        ...(policy.events_days === null ? [] : [`events ${policy.workspace_id}`]),
        ...(policy.audit_days === null ? [] : [`audit ${policy.workspace_id}`]),
      ]),
    );
    for (const key of this.swept.keys()) if (!swept.has(key)) this.swept.delete(key);
    for (const policy of policies) {
      if (this.stopped) break;
      const report = await this.pruneWorkspace(policy, hold);
      total.events += report.events;
      total.runs += report.runs;
      total.audit += report.audit;
    }
    if (total.events + total.runs + total.audit > 0) {
      this.ctx.logger.info(total, 'retention pruned');
    }
    return total;
  }

  /** Stops between two batches and waits for the pass in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    await this.running?.catch(() => {});
  }

  private async pruneWorkspace(
    policy: RetentionPolicyRow,
    hold: AdvisoryLockHold,
  ): Promise<PruneReport> {
    const now = this.ctx.store.now();
    const ws = policy.workspace_id;
    const steps = await PruningSteps.open({
      ctx: this.ctx,
      hold,
      exportDir: this.options.exportDir,
      workspaceId: ws,
      pace: this.pace,
    });
    const report: PruneReport = { events: 0, runs: 0, audit: 0 };
    if (policy.events_days !== null) {
      const cutoff = now - policy.events_days * DAY_MS;
      const swept = await this.pruneEventRange(steps, ws, cutoff, {
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
      const swept = await this.pruneEventRange(steps, ws, now - policy.audit_days * DAY_MS, {
        kind: 'audit',
        types: { only: AUDIT_TYPES },
        prunedBefore: 0,
      });
      report.audit += swept.pruned;
    }
    return report;
  }

  /**
   * Prunes a workspace's events of one kind written before `cutoff`: first
   * the kept events of the runs held by earlier passes that have ended
   * since, then the log written since the last pass of this process swept
   * it (or, in a new process, from the first event written at or after
   * `prunedBefore`: every event of those types written earlier is known to
   * be gone), batch by batch, each reading at most its size of rows (see
   * eventsToPrune), keeping those of runs that have not ended. Answers how
   * many went, and when the oldest event still kept for a live run was written.
   */
  private async pruneEventRange(
    steps: PruningSteps,
    ws: string,
    cutoff: number,
    sweep: { kind: EventKind; types: EventTypes; prunedBefore: number },
  ): Promise<{ pruned: number; firstKeptAt: number | null }> {
    const through = await lastSeqBefore(this.ctx.store, ws, cutoff);
    const key = `${sweep.kind} ${ws}`;
    let range = this.swept.get(key);
    if (!range) {
      const start =
        sweep.prunedBefore > 0 ? await lastSeqBefore(this.ctx.store, ws, sweep.prunedBefore) : 0;
      range = { through: start, held: new Map() };
      this.swept.set(key, range);
    }
    let pruned = await this.pruneHeld(steps, ws, range, through, sweep.types);
    while (!this.stopped && range.through < through) {
      const batch = await eventsToPrune(this.ctx.store, {
        workspaceId: ws,
        after: range.through,
        through,
        types: sweep.types,
        limit: this.batchRows,
      });
      if (batch.scannedThrough === 0) break;
      for (const kept of batch.kept) {
        if (!range.held.has(kept.runId)) {
          range.held.set(kept.runId, { seq: kept.seq, createdAt: kept.createdAt });
        }
      }
      pruned += await this.prune(steps, ws, batch.rows);
      range.through = batch.scannedThrough;
    }
    let firstKeptAt: number | null = null;
    for (const { createdAt } of range.held.values()) {
      firstKeptAt = firstKeptAt === null ? createdAt : Math.min(firstKeptAt, createdAt);
    }
    return { pruned, firstKeptAt };
  }

  /**
   * Prunes the kept events of the held runs that have ended (or were
   * pruned) since, up to where the sweep read and the cutoff, by each run's
   * index in batches of at most their size of the run's rows; a run goes
   * from the held ones once all of them went. Answers how many went.
   */
  private async pruneHeld(
    steps: PruningSteps,
    ws: string,
    range: SweptRange,
    through: number,
    types: EventTypes,
  ): Promise<number> {
    if (range.held.size === 0) return 0;
    const live = await liveRunsAmong(this.ctx.store, [...range.held.keys()]);
    // A window made longer since: the kept events past the new cutoff stay until it passes them.
    const upTo = Math.min(range.through, through);
    let pruned = 0;
    for (const [runId, first] of range.held) {
      if (this.stopped) break;
      if (live.has(runId)) continue;
      let after = first.seq - 1;
      while (!this.stopped) {
        const batch = await runEventsToPrune(this.ctx.store, {
          runId,
          after,
          through: upTo,
          types,
          limit: this.batchRows,
        });
        if (batch.scannedThrough === 0) break;
        pruned += await this.prune(steps, ws, batch.rows);
        after = batch.scannedThrough;
      }
      if (after >= upTo && upTo === range.through) range.held.delete(runId);
    }
    return pruned;
  }

  /**
   * Exports and deletes a batch's events, in units of work sized to the
   * events' budget (see StepBudget), or, when it has none, rests as after
   * any step: a read is on the kernel's thread too.
   */
  private async prune(
    steps: PruningSteps,
    ws: string,
    rows: readonly RunEventTable[],
  ): Promise<number> {
    if (rows.length === 0) {
      await steps.rest();
      return 0;
    }
    for (let done = 0; done < rows.length; ) {
      const unit = rows.slice(done, done + this.budgets.events.rows);
      const heldMs = await steps.commit(await this.eventLines(unit), (tx) =>
        deleteEvents(
          tx,
          ws,
          unit.map((row) => row.seq),
        ),
      );
      this.budgets.events.record(unit.length, heldMs);
      done += unit.length;
    }
    return rows.length;
  }

  /** The export lines of events: audit records where they are decisions, event views otherwise. */
  private async eventLines(
    rows: readonly RunEventTable[],
  ): Promise<{ audit: unknown[]; events: unknown[] }> {
    const decisions = rows.filter((row) => (AUDIT_TYPES as string[]).includes(row.type));
    // Only a decision's record reads its task row (the tool and the rule).
    const runIds = [
      ...new Set(decisions.filter((row) => row.task_key !== null).map((row) => row.run_id)),
    ];
    const tasks = new Map(
      (await tasksOfRuns(this.ctx.store, runIds)).map((task) => [
        `${task.run_id} ${task.key}`,
        task,
      ]),
    );
    const audit: unknown[] = [];
    const events: unknown[] = [];
    for (const row of rows) {
      const task =
        row.task_key === null ? null : (tasks.get(`${row.run_id} ${row.task_key}`) ?? null);
      const record = (AUDIT_TYPES as string[]).includes(row.type) ? auditRecord(row, task) : null;
      if (record) audit.push(record);
      else events.push(eventView(row));
    }
    return { audit, events };
  }
}
