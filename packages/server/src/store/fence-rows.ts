import { sql } from 'kysely';
import type { Reader } from './reader.js';
import { rowLimit } from './row-limit.js';
import type { TaskTable } from './schema.js';
import { SQL } from './sql-handle.js';
import type { Store } from './store.js';
import { agentRunsCall } from './task-inbox.js';
import { stateLiteral } from './tasks.js';

/**
 * The reads of a restore's fence (kernel/verbs/restore-fence.ts): the rows an
 * executor could have run after a backup was taken, in running runs. A hooked
 * agent's own call is left out: no executor runs it, its agent did or did not.
 */

/** A run that has rows to fence, and where it lives. */
export interface RunToFence {
  workspace_id: string;
  run_id: string;
}

/** Up to `limit` running runs with a granted or claimed tool or hook row, after `after` (by id). */
export async function runsToFence(
  store: Store,
  page: { after: string | null; limit: number },
): Promise<RunToFence[]> {
  const after = page.after;
  return store.db
    .selectFrom('tasks')
    .innerJoin('runs', 'runs.id', 'tasks.run_id')
    .select(['tasks.workspace_id', 'tasks.run_id'])
    .distinct()
    .where('runs.state', '=', sql.lit('running'))
    .where('tasks.state', 'in', [stateLiteral('runnable'), stateLiteral('claimed')])
    .where('tasks.kind', 'in', [sql.lit<'tool'>('tool'), sql.lit<'hook'>('hook')])
    .where((eb) => eb.not(agentRunsCall))
    .$if(after !== null, (qb) => qb.where('tasks.run_id', '>', after ?? ''))
    .orderBy('tasks.run_id')
    .limit(rowLimit(page.limit))
    .execute();
}

/** A run's granted or claimed tool and hook rows an executor could have run, by key. */
export async function rowsToFence(
  reader: Reader,
  runId: string,
): Promise<Pick<TaskTable, 'key' | 'state' | 'kind' | 'tool_name' | 'claim_id'>[]> {
  return reader[SQL].db
    .selectFrom('tasks')
    .select(['tasks.key', 'tasks.state', 'tasks.kind', 'tasks.tool_name', 'tasks.claim_id'])
    .where('tasks.run_id', '=', runId)
    .where('tasks.state', 'in', [stateLiteral('runnable'), stateLiteral('claimed')])
    .where('tasks.kind', 'in', [sql.lit<'tool'>('tool'), sql.lit<'hook'>('hook')])
    .where((eb) => eb.not(agentRunsCall))
    .orderBy(sql`length(tasks.key)`)
    .orderBy('tasks.key')
    .execute();
}
