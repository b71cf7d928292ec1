import { sql } from 'kysely';
import type { Store } from './store.js';
import { stateLiteral } from './tasks.js';

/** The parked calls of one workspace waiting for a person, as the metrics read them. */
export interface WorkspaceParks {
  workspaceId: string;
  waiting: number;
  /** When the oldest of them parked (epoch ms). */
  oldestAt: number;
  /** For each age asked for, how many have waited at least that long. */
  olderThan: number[];
}

/**
 * Counts the parked rows per workspace, with their oldest park and how many
 * are older than each age. It reads the partial index of parked rows
 * (`tasks_park_deadlines`), so its cost follows the parks, not the table.
 */
export async function parksWaitingByWorkspace(
  store: Store,
  options: { now: number; agesMs: readonly number[] },
): Promise<WorkspaceParks[]> {
  const ages = options.agesMs.map((age, i) =>
    sql<number>`sum(case when created_at <= ${options.now - age} then 1 else 0 end)`.as(
      `over_${i}`,
    ),
  );
  const rows = (await store.db
    .selectFrom('tasks')
    .select([
      'workspace_id',
      sql<number>`count(*)`.as('waiting'),
      sql<number>`min(created_at)`.as('oldest_at'),
      ...ages,
    ])
    .where('state', '=', stateLiteral('needs_approval'))
    .groupBy('workspace_id')
    .execute()) as unknown as Record<string, unknown>[];
  return rows.map((row) => ({
    workspaceId: String(row.workspace_id),
    waiting: Number(row.waiting),
    oldestAt: Number(row.oldest_at),
    olderThan: options.agesMs.map((_, i) => Number(row[`over_${i}`] ?? 0)),
  }));
}
