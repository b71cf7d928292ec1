import { AUDIT_EVENT_TYPES, type AuditTask, auditRecord } from '../../audit/audit-records.js';
import {
  activeRetentionPolicies,
  deleteEvents,
  eventsToPrune,
  lastSeqBefore,
  markEventsPrunedBefore,
  type RetentionPolicyRow,
} from '../../store/retention.js';
import { type PruningLease, withPruningLease } from '../../store/retention-lease.js';
import {
  approvalsOfRuns,
  deleteRuns,
  deliveriesOfRuns,
  type EventDataUpdate,
  endedRunsBefore,
  eventsOfRuns,
  tasksOfRuns,
} from '../../store/retention-runs.js';
import type { RunEventTable } from '../../store/schema.js';
import type { KernelContext } from '../context.js';
import { deliveryView, eventView, runView, taskView } from '../views.js';
import { appendExport } from './retention-export.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** How the kernel prunes: where it exports, how often, and how much per transaction. */
export interface RetentionOptions {
  /** Where what is pruned is written first (JSON lines per workspace and day). */
  exportDir: string;
  /** Least time between two pruning passes; default one minute. */
  intervalMs?: number | undefined;
  /** Most rows one delete transaction touches; default 500. */
  batchRows?: number | undefined;
  /** Most runs pruned together; default 100. */
  batchRuns?: number | undefined;
}

/** What one pruning pass removed. */
export interface PruneReport {
  events: number;
  runs: number;
  audit: number;
}

const AUDIT_TYPES = [...AUDIT_EVENT_TYPES];

/**
 * Applies every workspace's retention policy: non-audit events, then ended
 * runs (with their task rows and remaining events), then audit records, each
 * older than its window, oldest first, in bounded transactions; what goes is
 * appended to the export directory first. A pass is started from the
 * kernel's clock sweep at most once per interval and never overlaps another,
 * in this process or (on PostgreSQL) in any other kernel on the database, so
 * each pruned row is exported once.
 */
export class RetentionPruner {
  private lastPass = Number.NEGATIVE_INFINITY;
  private running: Promise<PruneReport> | undefined;
  /** The hold of the pass in flight: confirmed before each batch is exported. */
  private lease: PruningLease | undefined;
  private stopped = false;
  private readonly intervalMs: number;
  private readonly batchRows: number;
  private readonly batchRuns: number;

  constructor(
    private readonly ctx: KernelContext,
    private readonly options: RetentionOptions,
  ) {
    this.intervalMs = options.intervalMs ?? 60_000;
    this.batchRows = options.batchRows ?? 500;
    this.batchRuns = options.batchRuns ?? 100;
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
   * Runs a pass now (or waits for the one running) and reports what it
   * removed; nothing when another kernel process on the same PostgreSQL
   * database is running one (see withPruningLease).
   */
  pruneNow(): Promise<PruneReport> {
    this.running ??= (async () => {
      try {
        this.lastPass = this.ctx.store.now();
        const outcome = await withPruningLease(this.ctx.store, (lease) => this.pass(lease));
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

  private async pass(lease: PruningLease): Promise<PruneReport> {
    this.lease = lease;
    const total: PruneReport = { events: 0, runs: 0, audit: 0 };
    for (const policy of await activeRetentionPolicies(this.ctx.store)) {
      if (this.stopped) break;
      const report = await this.pruneWorkspace(policy);
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
    await this.running?.catch(() => {});
  }

  private async pruneWorkspace(policy: RetentionPolicyRow): Promise<PruneReport> {
    const now = this.ctx.store.now();
    const ws = policy.workspace_id;
    const report: PruneReport = { events: 0, runs: 0, audit: 0 };
    if (policy.events_days !== null) {
      const cutoff = now - policy.events_days * DAY_MS;
      report.events += await this.pruneEventRange(ws, cutoff, { except: AUDIT_TYPES });
      if (!this.stopped) await markEventsPrunedBefore(this.ctx.store, ws, cutoff);
    }
    if (policy.runs_days !== null) {
      report.runs += await this.pruneRuns(ws, now - policy.runs_days * DAY_MS);
    }
    if (policy.audit_days !== null) {
      report.audit += await this.pruneEventRange(ws, now - policy.audit_days * DAY_MS, {
        only: AUDIT_TYPES,
      });
    }
    return report;
  }

  /** Prunes a workspace's events of some types written before `cutoff`, batch by batch. */
  private async pruneEventRange(
    ws: string,
    cutoff: number,
    types: { only: typeof AUDIT_TYPES } | { except: typeof AUDIT_TYPES },
  ): Promise<number> {
    const through = await lastSeqBefore(this.ctx.store, ws, cutoff);
    let after = 0;
    let pruned = 0;
    while (!this.stopped) {
      const rows = await eventsToPrune(this.ctx.store, {
        workspaceId: ws,
        after,
        through,
        types,
        limit: this.batchRows,
      });
      if (rows.length === 0) break;
      await this.exportEvents(ws, rows);
      await deleteEvents(
        this.ctx.store,
        ws,
        rows.map((row) => row.seq),
      );
      pruned += rows.length;
      after = rows[rows.length - 1]!.seq;
    }
    return pruned;
  }

  /** Writes events to the export: audit records where they are decisions, event views otherwise. */
  private async exportEvents(ws: string, rows: readonly RunEventTable[]): Promise<void> {
    await this.lease?.confirm();
    const runIds = [
      ...new Set(rows.filter((row) => row.task_key !== null).map((row) => row.run_id)),
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
    const now = this.ctx.store.now();
    const directory = this.options.exportDir;
    appendExport({ directory, workspaceId: ws, kind: 'audit', lines: audit, now });
    appendExport({ directory, workspaceId: ws, kind: 'events', lines: events, now });
  }

  /**
   * Prunes runs that ended before `cutoff`: exports each with its tasks,
   * member approvals and notification deliveries, prunes their non-audit
   * events, stamps their kept audit events with what their task row said (so
   * the audit trail still names the tool and the rule), then deletes every
   * row keyed by them and the runs.
   */
  private async pruneRuns(ws: string, cutoff: number): Promise<number> {
    let pruned = 0;
    while (!this.stopped) {
      const runs = await endedRunsBefore(this.ctx.store, {
        workspaceId: ws,
        cutoff,
        limit: this.batchRuns,
      });
      if (runs.length === 0) break;
      const runIds = runs.map((run) => run.id);
      const tasks = await tasksOfRuns(this.ctx.store, runIds);
      const approvals = await approvalsOfRuns(this.ctx.store, runIds);
      const deliveries = await deliveriesOfRuns(this.ctx.store, runIds);
      await this.lease?.confirm();
      appendExport({
        directory: this.options.exportDir,
        workspaceId: ws,
        kind: 'runs',
        now: this.ctx.store.now(),
        lines: runs.map((run) => ({
          run: runView(run),
          tasks: tasks.filter((task) => task.run_id === run.id).map(taskView),
          // Who approved which row version: the record of a quorum, kept with its run.
          approvals: approvals
            .filter((approval) => approval.run_id === run.id)
            .map(({ task_key, row_version, principal, created_at }) => ({
              task_key,
              row_version,
              principal,
              created_at: Number(created_at),
            })),
          notifications: deliveries
            .filter((delivery) => delivery.run_id === run.id)
            .map(deliveryView),
        })),
      });
      for (;;) {
        const rows = await eventsOfRuns(this.ctx.store, {
          workspaceId: ws,
          runIds,
          types: { except: AUDIT_TYPES },
          limit: this.batchRows,
        });
        // A batch whose runs were exported is finished even when the kernel stops meanwhile,
        // so that no run is exported twice.
        if (rows.length === 0) break;
        await this.exportEvents(ws, rows);
        await deleteEvents(
          this.ctx.store,
          ws,
          rows.map((row) => row.seq),
        );
      }
      const byKey = new Map(tasks.map((task) => [`${task.run_id} ${task.key}`, task]));
      const kept = await eventsOfRuns(this.ctx.store, {
        workspaceId: ws,
        runIds,
        types: { only: AUDIT_TYPES },
        limit: 1_000_000,
      });
      const auditUpdates: EventDataUpdate[] = [];
      for (const event of kept) {
        const task =
          event.task_key === null ? undefined : byKey.get(`${event.run_id} ${event.task_key}`);
        if (!task) continue;
        const snapshot: AuditTask = {
          kind: task.kind,
          tool_name: task.tool_name,
          decision: task.decision,
        };
        const data = JSON.parse(event.data) as Record<string, unknown>;
        auditUpdates.push({
          seq: event.seq,
          data: JSON.stringify({ ...data, pruned_task: snapshot }),
        });
      }
      await deleteRuns(this.ctx.store, {
        workspaceId: ws,
        runIds,
        auditUpdates,
        tasks,
        approvals,
        deliveryIds: deliveries.map((delivery) => delivery.id),
        batch: this.batchRows,
      });
      pruned += runs.length;
    }
    return pruned;
  }
}
