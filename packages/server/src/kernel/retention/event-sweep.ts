import { AUDIT_EVENT_TYPES, auditRecord } from '../../audit/audit-records.js';
import {
  deleteEvents,
  type EventTypes,
  eventsToPrune,
  lastSeqBefore,
  liveRunsAmong,
  runEventsToPrune,
} from '../../store/retention.js';
import { tasksOfRuns } from '../../store/retention-runs.js';
import {
  type HeldRun,
  readSweep,
  recordSweep,
  type StoredSweep,
  type SweepKind,
} from '../../store/retention-sweeps.js';
import type { RunEventTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import type { KernelContext } from '../context.js';
import { eventView } from '../views.js';
import type { PruningSteps } from './retention-step.js';
import type { StepBudget } from './step-budget.js';

/** The event types that are audit records. */
export const AUDIT_TYPES = [...AUDIT_EVENT_TYPES];

/** Which kind of a workspace's events a sweep prunes, and where a sweep never recorded starts. */
export interface SweepOf {
  kind: SweepKind;
  types: EventTypes;
  /** Every event of those types written before this time is known to be gone (0: none is). */
  prunedBefore: number;
}

/**
 * What a sweep has not recorded yet: the runs it came to hold and those it
 * let go since its record, and how far that record reads. Each batch records
 * it with its delete (in the same unit of work), and the sweep once more at
 * its end, so a pass cut short by a kill redoes at most one batch.
 */
class Unrecorded {
  private held = new Map<string, HeldRun>();
  private released = new Set<string>();
  private recordedThrough: number | null;

  constructor(
    private readonly workspaceId: string,
    private readonly kind: SweepKind,
    stored: StoredSweep | undefined,
  ) {
    this.recordedThrough = stored?.through ?? null;
  }

  hold(runId: string, run: HeldRun): void {
    this.held.set(runId, run);
    this.released.delete(runId);
  }

  release(runId: string): void {
    this.held.delete(runId);
    this.released.add(runId);
  }

  /** Whether the record lags the sweep at `through`. */
  lags(through: number): boolean {
    return this.recordedThrough !== through || this.held.size > 0 || this.released.size > 0;
  }

  /** Records the sweep at `through` in the unit of work; forgotten here once it commits. */
  async record(tx: Tx, through: number): Promise<void> {
    const held = new Map(this.held);
    const released = [...this.released];
    await recordSweep(tx, {
      workspaceId: this.workspaceId,
      kind: this.kind,
      through,
      held,
      released,
    });
    tx.afterCommit(() => {
      for (const runId of held.keys()) this.held.delete(runId);
      for (const runId of released) this.released.delete(runId);
      this.recordedThrough = through;
    });
  }
}

/**
 * Prunes one kind of a workspace's events by its window, oldest first, in
 * bounded batches (see eventsToPrune), keeping those of runs that have not
 * ended. Where the sweep stands is kept in the store (retention-sweeps.ts):
 * each pass, of this process or another (a restarted kernel, another kernel
 * on the same PostgreSQL database), reads only the log written since, and
 * the kept events of a held run, read by the run's own index, go once the
 * run has ended.
 */
export class EventSweep {
  constructor(
    private readonly ctx: KernelContext,
    private readonly options: {
      batchRows: number;
      /** The events' step size (see StepBudget). */
      budget: StepBudget;
      stopped: () => boolean;
    },
  ) {}

  /**
   * Prunes a workspace's events of one kind written before `cutoff`: first
   * the kept events of the held runs that have ended since, then the log
   * from where the recorded sweep stands (or, when none is, from the first
   * event written at or after `prunedBefore`). Answers how many went, and
   * when the oldest event still kept for a live run was written.
   */
  async sweep(
    steps: PruningSteps,
    ws: string,
    cutoff: number,
    of: SweepOf,
  ): Promise<{ pruned: number; firstKeptAt: number | null }> {
    const store = this.ctx.store;
    const through = await lastSeqBefore(store, ws, cutoff);
    const stored = await readSweep(store, ws, of.kind);
    const range: StoredSweep = stored ?? {
      through: of.prunedBefore > 0 ? await lastSeqBefore(store, ws, of.prunedBefore) : 0,
      held: new Map(),
    };
    const unrecorded = new Unrecorded(ws, of.kind, stored);
    let pruned = await this.pruneHeld(steps, ws, { range, through, of, unrecorded });
    while (!this.options.stopped() && range.through < through) {
      const batch = await eventsToPrune(store, {
        workspaceId: ws,
        after: range.through,
        through,
        types: of.types,
        limit: this.options.batchRows,
      });
      if (batch.scannedThrough === 0) break;
      for (const kept of batch.kept) {
        if (range.held.has(kept.runId)) continue;
        const run = { seq: kept.seq, createdAt: kept.createdAt };
        range.held.set(kept.runId, run);
        unrecorded.hold(kept.runId, run);
      }
      const next = batch.scannedThrough;
      pruned += await this.prune(steps, ws, batch.rows, (tx) => unrecorded.record(tx, next));
      range.through = next;
    }
    if (unrecorded.lags(range.through)) {
      await store.transaction((tx) => unrecorded.record(tx, range.through));
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
    sweep: { range: StoredSweep; through: number; of: SweepOf; unrecorded: Unrecorded },
  ): Promise<number> {
    const { range, unrecorded } = sweep;
    if (range.held.size === 0) return 0;
    const live = await liveRunsAmong(this.ctx.store, [...range.held.keys()]);
    // A window made longer since: the kept events past the new cutoff stay until it passes them.
    const upTo = Math.min(range.through, sweep.through);
    let pruned = 0;
    for (const [runId, first] of range.held) {
      if (this.options.stopped()) break;
      if (live.has(runId)) continue;
      let after = first.seq - 1;
      while (!this.options.stopped()) {
        const batch = await runEventsToPrune(this.ctx.store, {
          runId,
          after,
          through: upTo,
          types: sweep.of.types,
          limit: this.options.batchRows,
        });
        if (batch.scannedThrough === 0) break;
        pruned += await this.prune(steps, ws, batch.rows);
        after = batch.scannedThrough;
      }
      if (after >= upTo && upTo === range.through) {
        range.held.delete(runId);
        unrecorded.release(runId);
      }
    }
    return pruned;
  }

  /**
   * Exports and deletes a batch's events, in units of work sized to the
   * events' budget (see StepBudget), the last of them also running `last`;
   * or, when it has none, rests as after any step: a read is on the
   * kernel's thread too.
   */
  private async prune(
    steps: PruningSteps,
    ws: string,
    rows: readonly RunEventTable[],
    last?: (tx: Tx) => Promise<void>,
  ): Promise<number> {
    if (rows.length === 0) {
      await steps.rest();
      return 0;
    }
    const { budget } = this.options;
    for (let done = 0; done < rows.length; ) {
      const unit = rows.slice(done, done + budget.rows);
      const ends = done + unit.length === rows.length;
      const heldMs = await steps.commit(await this.eventLines(unit), async (tx) => {
        await deleteEvents(
          tx,
          ws,
          unit.map((row) => row.seq),
        );
        if (ends) await last?.(tx);
      });
      budget.record(unit.length, heldMs);
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
