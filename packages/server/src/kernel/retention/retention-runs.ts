import { AUDIT_EVENT_TYPES, type AuditTask } from '../../audit/audit-records.js';
import type { DeliveryRow } from '../../store/notifications.js';
import { deleteEvents } from '../../store/retention.js';
import { endedRunsBefore, rowCountsOfRuns } from '../../store/retention-ended-runs.js';
import {
  approvalsOfRuns,
  ConversationRevivedError,
  conversationsEndingWith,
  deleteRuns,
  deliveriesOfRuns,
  type EndingConversation,
  type EventDataUpdate,
  eventsOfRuns,
  RunsChangedError,
  stampAuditEvents,
  tasksOfRuns,
} from '../../store/retention-runs.js';
import type { RunTable, TaskApprovalTable, TaskTable } from '../../store/schema.js';
import type { KernelContext } from '../context.js';
import { deliveryView, eventView, runView, taskView } from '../views.js';
import type { PruningSteps } from './retention-step.js';
import type { StepBudget } from './step-budget.js';

const AUDIT_TYPES = [...AUDIT_EVENT_TYPES];

/** How the run phase of a pass is bounded, and when it stops. */
export interface RunPruning {
  ctx: KernelContext;
  steps: PruningSteps;
  workspaceId: string;
  cutoff: number;
  /** Most rows one unit of work deletes or rewrites. */
  batchRows: number;
  /** Most runs read together. */
  batchRuns: number;
  /** The sizes of its units of work, fitted to a time budget. */
  budgets: PruningBudgets;
  stopped: () => boolean;
}

/** How many rows each kind of a pass's units of work takes next (see StepBudget). */
export interface PruningBudgets {
  /** Events deleted (events, audit records, the remaining events of pruned runs). */
  events: StepBudget;
  /** Kept audit events stamped with their task row. */
  stamps: StepBudget;
  /** A batch of runs with their task rows, approvals and notices. */
  runs: StepBudget;
}

/** A batch of runs with every row keyed by them. */
interface RunBatch {
  /** The runs and the rows keyed by them: what the batch's delete touches. */
  rows: number;
  runs: RunTable[];
  tasks: TaskTable[];
  approvals: TaskApprovalTable[];
  deliveries: DeliveryRow[];
}

/** Groups rows by run id. */
function byRun<T extends { run_id: string }>(rows: readonly T[]): Map<string, T[]> {
  const grouped = new Map<string, T[]>();
  for (const row of rows) {
    const list = grouped.get(row.run_id);
    if (list) list.push(row);
    else grouped.set(row.run_id, [row]);
  }
  return grouped;
}

/**
 * Reads the oldest ended runs and keeps the longest prefix whose rows (the
 * runs, their task rows, approvals and deliveries) fit in one unit of work,
 * one run at least, sized by counting those rows first: only the rows of the
 * runs kept are read.
 */
async function nextBatch(job: RunPruning): Promise<RunBatch | null> {
  const read = await endedRunsBefore(job.ctx.store, {
    workspaceId: job.workspaceId,
    cutoff: job.cutoff,
    limit: job.batchRuns,
  });
  if (read.length === 0) return null;
  const counts = await rowCountsOfRuns(
    job.ctx.store,
    read.map((run) => run.id),
  );
  const runs: RunTable[] = [];
  let rows = 0;
  for (const run of read) {
    const weight = 1 + (counts.get(run.id) ?? 0);
    if (runs.length > 0 && rows + weight > job.budgets.runs.rows) break;
    rows += weight;
    runs.push(run);
  }
  const ids = runs.map((run) => run.id);
  return {
    rows,
    runs,
    tasks: await tasksOfRuns(job.ctx.store, ids),
    approvals: await approvalsOfRuns(job.ctx.store, ids),
    deliveries: await deliveriesOfRuns(job.ctx.store, ids),
  };
}

/** A runs export line: the run with its task rows, member approvals and notices. */
function runLine(run: RunTable, own: Omit<RunBatch, 'runs' | 'rows'>): unknown {
  return {
    run: runView(run),
    tasks: own.tasks.map(taskView),
    // Who approved which row version: the record of a quorum, kept with its run.
    approvals: own.approvals.map(({ task_key, row_version, principal, created_at }) => ({
      task_key,
      row_version,
      principal,
      created_at: Number(created_at),
    })),
    notifications: own.deliveries.map(deliveryView),
  };
}

/** A conversations export line: the conversation, its hooked sessions and its overlay. */
function conversationLine(ending: EndingConversation): unknown {
  const { conversation, hookSessions, overlay } = ending;
  return {
    conversation: { ...conversation, created_at: Number(conversation.created_at) },
    hook_sessions: hookSessions.map((session) => ({
      ...session,
      created_at: Number(session.created_at),
    })),
    overlay: overlay && {
      ...overlay,
      document: JSON.parse(overlay.document) as unknown,
      updated_at: Number(overlay.updated_at),
    },
  };
}

/**
 * Stamps the runs' kept audit events with what their task row said (so the
 * audit trail still names the tool and the rule once the row is gone), in
 * units of work sized to the stamps' budget; stamping twice changes nothing.
 */
async function stampAudit(job: RunPruning, batch: RunBatch): Promise<void> {
  const ids = batch.runs.map((run) => run.id);
  const byKey = new Map(batch.tasks.map((task) => [`${task.run_id} ${task.key}`, task]));
  let after = 0;
  for (;;) {
    const kept = await eventsOfRuns(job.ctx.store, {
      runIds: ids,
      types: { only: AUDIT_TYPES },
      after,
      limit: job.batchRows,
    });
    if (kept.length === 0) return;
    after = kept[kept.length - 1]!.seq;
    const updates: EventDataUpdate[] = [];
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
      updates.push({ seq: event.seq, data: JSON.stringify({ ...data, pruned_task: snapshot }) });
    }
    for (let done = 0; done < updates.length; ) {
      const chunk = updates.slice(done, done + job.budgets.stamps.rows);
      const heldMs = await job.ctx.store.transaction(async (tx) => {
        const started = performance.now();
        await stampAuditEvents(tx, job.workspaceId, chunk);
        return performance.now() - started;
      });
      job.budgets.stamps.record(chunk.length, heldMs);
      await job.steps.rest();
      done += chunk.length;
    }
  }
}

/** How many times a batch's last step reads its conversations again when one changed meanwhile. */
const REREADS_ON_REVIVAL = 3;

/** How many times a batch is pruned again from its events when its runs changed meanwhile. */
const REDOS_ON_CHANGE = 3;

/**
 * The last step of a batch: exports the runs (with their task rows,
 * approvals and notices) and the conversations that end with them, and
 * deletes them all. A conversation that got a run (or a new overlay) after
 * it was read makes the delete roll back (see deleteRuns); its export is cut
 * back, and the step reads the conversations again, so the batch still goes
 * in this pass and the conversation stays.
 * @throws RunsChangedError when a run's notice was redelivered or an event
 *   named one after the batch was read (the delete rolled back, its export
 *   was cut back): the caller prunes the batch again from its events.
 */
async function deleteBatch(job: RunPruning, batch: RunBatch): Promise<void> {
  const ids = batch.runs.map((run) => run.id);
  const conversationIds = [
    ...new Set(batch.runs.flatMap((run) => (run.conversation_id ? [run.conversation_id] : []))),
  ];
  const tasks = byRun(batch.tasks);
  const approvals = byRun(batch.approvals);
  const deliveries = byRun(batch.deliveries);
  const runs = batch.runs.map((run) =>
    runLine(run, {
      tasks: tasks.get(run.id) ?? [],
      approvals: approvals.get(run.id) ?? [],
      deliveries: deliveries.get(run.id) ?? [],
    }),
  );
  for (let attempt = 1; ; attempt += 1) {
    const ending = await conversationsEndingWith(job.ctx.store, {
      workspaceId: job.workspaceId,
      runIds: ids,
      conversationIds,
    });
    try {
      const heldMs = await job.steps.commit(
        { runs, conversations: ending.map(conversationLine) },
        (tx) =>
          deleteRuns(tx, {
            workspaceId: job.workspaceId,
            runIds: ids,
            conversations: ending,
            deliveries: batch.deliveries,
            keptTypes: AUDIT_TYPES,
          }),
      );
      job.budgets.runs.record(batch.rows, heldMs);
      return;
    } catch (error) {
      if (!(error instanceof ConversationRevivedError) || attempt >= REREADS_ON_REVIVAL) {
        throw error;
      }
      job.ctx.logger.info(
        { workspace: job.workspaceId, conversations: error.conversationIds },
        'retention: conversations changed while their last runs were pruned; reading them again',
      );
    }
  }
}

/**
 * Prunes a workspace's runs that ended before the cutoff, oldest first: for
 * each batch, its remaining non-audit events (exported as events, in steps
 * of `batchRows`), then its kept audit events are stamped, then one step
 * exports the runs (with their task rows, approvals and notices) and the
 * conversations that end with them, and deletes them all. A batch whose
 * runs changed before that last step (a notice redelivered meanwhile, and
 * its `notification.delivered` written after the events went) is read and
 * pruned again, so no row or event naming a pruned run is left.
 * Answers how many runs went.
 */
export async function pruneRuns(job: RunPruning): Promise<number> {
  let pruned = 0;
  let redos = 0;
  while (!job.stopped() || redos > 0) {
    const batch = await nextBatch(job);
    if (!batch) break;
    const ids = batch.runs.map((run) => run.id);
    // A batch whose events started going is finished even when the kernel stops meanwhile.
    for (;;) {
      const rows = await eventsOfRuns(job.ctx.store, {
        runIds: ids,
        types: { except: AUDIT_TYPES },
        after: 0,
        limit: job.budgets.events.rows,
      });
      if (rows.length === 0) break;
      const heldMs = await job.steps.commit({ events: rows.map(eventView) }, (tx) =>
        deleteEvents(
          tx,
          job.workspaceId,
          rows.map((row) => row.seq),
        ),
      );
      job.budgets.events.record(rows.length, heldMs);
    }
    await stampAudit(job, batch);
    try {
      await deleteBatch(job, batch);
    } catch (error) {
      if (!(error instanceof RunsChangedError) || redos >= REDOS_ON_CHANGE) throw error;
      redos += 1;
      job.ctx.logger.info(
        { workspace: job.workspaceId, runs: error.runIds },
        'retention: runs changed while they were pruned; pruning their batch again',
      );
      continue;
    }
    redos = 0;
    pruned += batch.runs.length;
  }
  return pruned;
}
