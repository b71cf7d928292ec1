/** The time a pruning unit of work may hold the write path, by default, in milliseconds. */
export const DEFAULT_UNIT_BUDGET_MS = 3;

/** How many rows the first unit of a kind of step takes (fewer when `maxRows` is lower). */
const FIRST_ROWS = 50;

/**
 * Sizes one kind of pruning step (deleting events, stamping audit events,
 * deleting runs) to a time budget: after each unit of work it is told how
 * many rows the unit touched and how long its statements ran, and the next
 * unit gets as many rows as fit the budget at that rate: fewer at once
 * after a slow unit, at most twice as many after a fast one (starting from
 * 50, so a first unit is short whatever a row costs), never more
 * than `maxRows` nor fewer than `minRows`. On SQLite every other write
 * waits while a unit's statements run, so this bounds how long that is,
 * whatever a row costs on the machine and the store at hand.
 */
export class StepBudget {
  private size: number;
  private readonly minRows: number;

  constructor(
    private readonly options: { maxRows: number; budgetMs: number; minRows?: number | undefined },
  ) {
    this.minRows = Math.min(options.minRows ?? 1, options.maxRows);
    // The first unit is small, before anything is known of the rate; fast units double it.
    this.size = Math.max(this.minRows, Math.min(options.maxRows, FIRST_ROWS));
  }

  /** How many rows the next unit of work takes. */
  get rows(): number {
    return this.size;
  }

  /** Records a unit of work that touched `rows` rows in `ms` milliseconds of statements. */
  record(rows: number, ms: number): void {
    // A unit that touched nothing, or a time that is not one, says nothing about the rate.
    if (rows <= 0 || !Number.isFinite(ms) || ms < 0) return;
    const fit =
      ms <= 0 ? Number.POSITIVE_INFINITY : Math.floor((this.options.budgetMs * rows) / ms);
    const next = Math.min(fit, this.size * 2, this.options.maxRows);
    this.size = Math.max(this.minRows, next);
  }
}
