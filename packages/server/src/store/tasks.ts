import type { TaskState } from '@airlock/core';
import { type RawBuilder, sql } from 'kysely';
import type { TaskTable } from './schema.js';
import type { Store } from './store.js';

/**
 * The tasks repository: reads of task rows outside a unit of work. The moves
 * of a row (and the reads they need) go through the kernel's task machine.
 */

/** A state as an SQL literal (the partial indexes name their states literally). */
export function stateLiteral<S extends TaskState>(state: S): RawBuilder<S> {
  return sql.lit(state);
}

/** Every row of a run, in planting order (`t1`, `t2`, … `t10`). */
export async function listTasksOfRun(store: Store, runId: string): Promise<TaskTable[]> {
  const rows = await store.db.selectFrom('tasks').selectAll().where('run_id', '=', runId).execute();
  const order = (key: string) => Number.parseInt(key.slice(1), 10);
  return rows.sort((a, b) => order(a.key) - order(b.key));
}

/**
 * The rows of a workspace resting on a person (parked or asking), oldest
 * first; a question authored through the tasks door is left out, since it is
 * its token holder's alone.
 */
export async function listOpenDecisions(
  store: Store,
  workspaceId: string,
  limit: number,
): Promise<TaskTable[]> {
  return store.db
    .selectFrom('tasks')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('state', 'in', [stateLiteral('needs_approval'), stateLiteral('awaiting_input')])
    .where('resolution_token_hash', 'is', null)
    .orderBy('created_at')
    .limit(limit)
    .execute();
}
