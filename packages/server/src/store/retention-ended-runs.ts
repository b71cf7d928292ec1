import { rowLimit } from './row-limit.js';
import type { RunTable } from './schema.js';
import type { Store } from './store.js';

/**
 * A bounded batch of a workspace's runs that ended before `cutoff`, oldest first. A run that
 * still has a claimed row is left for a later pass: a stop cancels only rows not yet started, so
 * an executor may still be running that call and will commit what it did (a lapsed claim is
 * settled by the clocks, after which the run goes too). So is a run with a notice still pending
 * (retried with backoff), which would otherwise go unsent with its deliveries.
 */
export async function endedRunsBefore(
  store: Store,
  options: { workspaceId: string; cutoff: number; limit: number },
): Promise<RunTable[]> {
  return store.db
    .selectFrom('runs')
    .selectAll()
    .where('workspace_id', '=', options.workspaceId)
    .where('ended_at', 'is not', null)
    .where('ended_at', '<', options.cutoff)
    .where(({ and, exists, not, selectFrom }) =>
      and([
        not(
          exists(
            selectFrom('tasks')
              .select('tasks.key')
              .whereRef('tasks.run_id', '=', 'runs.id')
              .where('tasks.state', '=', 'claimed'),
          ),
        ),
        not(
          exists(
            selectFrom('notification_deliveries')
              .select('notification_deliveries.id')
              .whereRef('notification_deliveries.run_id', '=', 'runs.id')
              .where('notification_deliveries.state', '=', 'pending'),
          ),
        ),
      ]),
    )
    .orderBy('ended_at')
    .limit(rowLimit(options.limit))
    .execute();
}

/** The tables besides `runs` whose rows a run's delete removes with it. */
const RUN_ROW_TABLES = ['tasks', 'task_approvals', 'notification_deliveries'] as const;

/**
 * How many rows each of these runs holds in the tables its delete touches besides its own row
 * (task rows, member approvals, notification deliveries), counted on their run-id indexes: the
 * pruner sizes a batch by them before it reads any of those rows, so it reads the rows of the
 * runs it prunes and no others (a run of a long hooked session holds thousands).
 */
export async function rowCountsOfRuns(
  store: Store,
  runIds: readonly string[],
): Promise<Map<string, number>> {
  const counts = new Map(runIds.map((id) => [id, 0]));
  if (runIds.length === 0) return counts;
  const ids = [...runIds];
  for (const table of RUN_ROW_TABLES) {
    const rows = await store.db
      .selectFrom(table)
      .select((eb) => ['run_id', eb.fn.countAll<number | string | bigint>().as('count')])
      .where('run_id', 'in', ids)
      .groupBy('run_id')
      .execute();
    for (const row of rows) {
      if (row.run_id !== null)
        counts.set(row.run_id, (counts.get(row.run_id) ?? 0) + Number(row.count));
    }
  }
  return counts;
}
