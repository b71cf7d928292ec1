import type { DeliveryRow } from './notifications.js';
import type { EventTypes } from './retention.js';
import type { RunEventTable, RunTable, TaskApprovalTable, TaskTable } from './schema.js';
import { SQL } from './sql-handle.js';
import type { Store, Tx } from './store.js';

/**
 * The retention repository's side of ended runs: the bounded batches of
 * runs the pruner reads with everything keyed by them, and the bounded
 * deletes that remove them all, leaving no row behind that names a pruned run.
 */

/** A bounded batch of a workspace's runs that ended before `cutoff`, oldest first. */
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
    .orderBy('ended_at')
    .limit(options.limit)
    .execute();
}

/** Every task row of these runs. */
export async function tasksOfRuns(store: Store, runIds: readonly string[]): Promise<TaskTable[]> {
  if (runIds.length === 0) return [];
  return store.db
    .selectFrom('tasks')
    .selectAll()
    .where('run_id', 'in', [...runIds])
    .orderBy('run_id')
    .orderBy('created_at')
    .execute();
}

/** A bounded batch of these runs' events, of some types or all others. */
export async function eventsOfRuns(
  store: Store,
  options: {
    workspaceId: string;
    runIds: readonly string[];
    types: EventTypes;
    limit: number;
  },
): Promise<RunEventTable[]> {
  const only = 'only' in options.types;
  return store.db
    .selectFrom('run_events')
    .selectAll()
    .where('workspace_id', '=', options.workspaceId)
    .where('run_id', 'in', [...options.runIds])
    .where('type', only ? 'in' : 'not in', [
      ...('only' in options.types ? options.types.only : options.types.except),
    ])
    .orderBy('seq')
    .limit(options.limit)
    .execute();
}

/** A kept audit event's new data, carrying what its pruned task row said. */
export interface EventDataUpdate {
  seq: number;
  data: string;
}

/** Every member approval recorded on these runs' rows (every row version), oldest first. */
export async function approvalsOfRuns(
  store: Store,
  runIds: readonly string[],
): Promise<TaskApprovalTable[]> {
  if (runIds.length === 0) return [];
  return store.db
    .selectFrom('task_approvals')
    .selectAll()
    .where('run_id', 'in', [...runIds])
    .orderBy('created_at')
    .orderBy('principal')
    .execute();
}

/** Every notification delivery of these runs (the outbox rows of their parks, questions and endings). */
export async function deliveriesOfRuns(
  store: Store,
  runIds: readonly string[],
): Promise<DeliveryRow[]> {
  if (runIds.length === 0) return [];
  const rows = await store.db
    .selectFrom('notification_deliveries')
    .selectAll()
    .where('run_id', 'in', [...runIds])
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows as DeliveryRow[];
}

/** The rows of the runs to delete that live in other tables, each deleted by its key. */
export interface RunDependents {
  /** Audit events kept, with the data that now carries what their task row said. */
  auditUpdates: readonly EventDataUpdate[];
  tasks: readonly Pick<TaskTable, 'run_id' | 'key'>[];
  approvals: readonly Pick<
    TaskApprovalTable,
    'run_id' | 'task_key' | 'row_version' | 'principal'
  >[];
  deliveryIds: readonly string[];
}

/** Runs `work` on consecutive slices of `items`, each slice in a transaction of its own. */
async function inBatches<T>(
  store: Store,
  items: readonly T[],
  size: number,
  work: (tx: Tx, chunk: readonly T[]) => Promise<void>,
): Promise<void> {
  for (let i = 0; i < items.length; i += size) {
    const chunk = items.slice(i, i + size);
    await store.transaction((tx) => work(tx, chunk));
  }
}

/**
 * Deletes runs whose events are already pruned (or kept on their own), in
 * bounded transactions of at most `batch` rows each: first the given audit
 * events' new data, then every row keyed by the runs' rows (member
 * approvals, notification deliveries, claim locks with their task rows),
 * then the runs. A hooked session that pointed at one forgets it; whatever
 * of the runs was written after the caller read them goes with the runs.
 */
export async function deleteRuns(
  store: Store,
  options: RunDependents & { workspaceId: string; runIds: readonly string[]; batch: number },
): Promise<void> {
  await inBatches(store, options.auditUpdates, options.batch, async (tx, chunk) => {
    for (const update of chunk) {
      await tx[SQL].db
        .updateTable('run_events')
        .set({ data: update.data })
        .where('workspace_id', '=', options.workspaceId)
        .where('seq', '=', update.seq)
        .execute();
    }
  });
  await inBatches(store, options.approvals, options.batch, async (tx, chunk) => {
    await tx[SQL].db
      .deleteFrom('task_approvals')
      .where((eb) =>
        eb.or(
          chunk.map((approval) =>
            eb.and([
              eb('run_id', '=', approval.run_id),
              eb('task_key', '=', approval.task_key),
              eb('row_version', '=', approval.row_version),
              eb('principal', '=', approval.principal),
            ]),
          ),
        ),
      )
      .execute();
  });
  await inBatches(store, options.deliveryIds, options.batch, async (tx, chunk) => {
    await tx[SQL].db
      .deleteFrom('notification_deliveries')
      .where('id', 'in', [...chunk])
      .execute();
  });
  await inBatches(store, options.tasks, options.batch, async (tx, chunk) => {
    await tx[SQL].db
      .deleteFrom('claim_locks')
      .where('workspace_id', '=', options.workspaceId)
      .where((eb) =>
        eb.or(
          chunk.map((task) =>
            eb.and([eb('run_id', '=', task.run_id), eb('task_key', '=', task.key)]),
          ),
        ),
      )
      .execute();
    await tx[SQL].db
      .deleteFrom('tasks')
      .where((eb) =>
        eb.or(
          chunk.map((task) => eb.and([eb('run_id', '=', task.run_id), eb('key', '=', task.key)])),
        ),
      )
      .execute();
  });
  if (options.runIds.length === 0) return;
  const runIds = [...options.runIds];
  await store.transaction(async (tx) => {
    await tx[SQL].db
      .updateTable('hook_sessions')
      .set({ run_id: null })
      .where('run_id', 'in', runIds)
      .execute();
    // Normally none: what was written for these runs after they were read for the export.
    await tx[SQL].db.deleteFrom('task_approvals').where('run_id', 'in', runIds).execute();
    await tx[SQL].db.deleteFrom('notification_deliveries').where('run_id', 'in', runIds).execute();
    await tx[SQL].db
      .deleteFrom('claim_locks')
      .where('workspace_id', '=', options.workspaceId)
      .where('run_id', 'in', runIds)
      .execute();
    await tx[SQL].db
      .deleteFrom('runs')
      .where('workspace_id', '=', options.workspaceId)
      .where('id', 'in', runIds)
      .execute();
  });
}
