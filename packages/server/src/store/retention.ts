import type { Selectable } from 'kysely';
import { lockWorkspaceRow } from './accounts.js';
import type { Reader } from './reader.js';
import { rowLimit } from './row-limit.js';
import type { EventType, RetentionPolicyTable, RunEventTable } from './schema.js';
import { SQL } from './sql-handle.js';
import type { Store, Tx } from './store.js';

/**
 * The retention repository: a workspace's policy, the batches the kernel's
 * pruner reads (oldest first, bounded), and the bounded deletes it makes.
 * Every delete runs in the pruner's short unit of work of at most one batch of rows.
 */

/** A workspace's policy as read. */
export type RetentionPolicyRow = Selectable<RetentionPolicyTable>;

/** A policy's three windows in days; null keeps that kind of data forever. */
export interface RetentionWindows {
  events_days: number | null;
  runs_days: number | null;
  audit_days: number | null;
}

/** A workspace's policy as stored, or undefined when none was ever set. */
export async function readRetentionPolicy(
  reader: Reader,
  workspaceId: string,
): Promise<RetentionPolicyRow | undefined> {
  return reader[SQL].db
    .selectFrom('retention_policies')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

/**
 * A workspace's policy as stored, read to be replaced in this unit: the
 * workspace's row is locked first (lockWorkspaceRow), so two replacements
 * made from the same read take turns and the second sees the first.
 */
export async function readRetentionPolicyToReplace(
  tx: Tx,
  workspaceId: string,
): Promise<RetentionPolicyRow | undefined> {
  await lockWorkspaceRow(tx, workspaceId);
  return readRetentionPolicy(tx, workspaceId);
}

/**
 * Sets a workspace's policy in the caller's unit of work (its pruning
 * position is kept), after the caller read it with
 * readRetentionPolicyToReplace. Its `updated_at` is the version a change
 * made from a read names (`expected_updated_at`), so it always moves on: a
 * millisecond past the one replaced when the clock has not (two changes in
 * one millisecond, a clock set back), or a change made from the older read
 * would pass for one made from the newer.
 */
export async function writeRetentionPolicy(
  tx: Tx,
  policy: RetentionWindows & { workspaceId: string; principal: string },
): Promise<RetentionPolicyRow> {
  const replaced = await readRetentionPolicy(tx, policy.workspaceId);
  const windows = {
    events_days: policy.events_days,
    runs_days: policy.runs_days,
    audit_days: policy.audit_days,
    updated_by: policy.principal,
    updated_at: replaced === undefined ? tx.now : Math.max(tx.now, Number(replaced.updated_at) + 1),
  };
  await tx[SQL].db
    .insertInto('retention_policies')
    .values({ workspace_id: policy.workspaceId, ...windows })
    .onConflict((oc) => oc.column('workspace_id').doUpdateSet(windows))
    .execute();
  return (await readRetentionPolicy(tx, policy.workspaceId))!;
}

/** Every policy that prunes something. */
export async function activeRetentionPolicies(store: Store): Promise<RetentionPolicyRow[]> {
  return store.db
    .selectFrom('retention_policies')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb('events_days', 'is not', null),
        eb('runs_days', 'is not', null),
        eb('audit_days', 'is not', null),
      ]),
    )
    .orderBy('workspace_id')
    .execute();
}

/** How far a workspace's log has been pruned (zeros when never). */
export async function prunedPosition(
  store: Store,
  workspaceId: string,
): Promise<{ prunedThrough: number; eventsPrunedBefore: number }> {
  const row = await store.db
    .selectFrom('retention_policies')
    .select(['pruned_through', 'events_pruned_before'])
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return {
    prunedThrough: Number(row?.pruned_through ?? 0),
    eventsPrunedBefore: Number(row?.events_pruned_before ?? 0),
  };
}

/** When a run was created and whether it has ended, or undefined when the workspace has no such run. */
export async function runLifetime(
  store: Store,
  workspaceId: string,
  runId: string,
): Promise<{ createdAt: number; ended: boolean } | undefined> {
  const run = await store.db
    .selectFrom('runs')
    .select(['created_at', 'ended_at'])
    .where('id', '=', runId)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return run === undefined
    ? undefined
    : { createdAt: Number(run.created_at), ended: run.ended_at !== null };
}

/**
 * The last sequence number of a workspace's log whose event was written
 * before `cutoff` (0 when none), by a binary search over the primary key: a
 * workspace's events are numbered in commit order, so their times rise with
 * their numbers, and no index on time is needed (nor paid for on each insert).
 */
export async function lastSeqBefore(
  reader: Reader,
  workspaceId: string,
  cutoff: number,
): Promise<number> {
  const db = reader[SQL].db;
  const probe = (from: number) =>
    db
      .selectFrom('run_events')
      .select(['seq', 'created_at'])
      .where('workspace_id', '=', workspaceId)
      .where('seq', '>=', from)
      .orderBy('seq')
      .limit(rowLimit(1))
      .executeTakeFirst();
  const head = await db
    .selectFrom('workspaces')
    .select('event_seq')
    .where('id', '=', workspaceId)
    .executeTakeFirst();
  let low = 0;
  let high = Number(head?.event_seq ?? 0);
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    const found = await probe(middle);
    if (found && Number(found.created_at) < cutoff && Number(found.seq) <= high) {
      low = Number(found.seq);
    } else high = middle - 1;
  }
  return low;
}

/** The event types a batch holds (`only`) or leaves out (`except`). */
export type EventTypes = { only: readonly EventType[] } | { except: readonly EventType[] };

/** Whether an event's type is among those a batch holds. */
function ofTypes(type: EventType, types: EventTypes): boolean {
  return 'only' in types ? types.only.includes(type) : !types.except.includes(type);
}

/** A bounded page of a workspace's events between two sequence numbers, of some types or all others. */
export interface EventBatch {
  workspaceId: string;
  after: number;
  through: number;
  types: EventTypes;
  /** Most events the batch reads (and so returns), whatever their types. */
  limit: number;
}

/** The first event a batch kept for a run that has not ended. */
export interface KeptEvent {
  runId: string;
  seq: number;
  createdAt: number;
}

/**
 * One batch of the sweep: the events it may delete, how far it read, and
 * what it kept for live runs.
 */
export interface PruneBatch {
  rows: RunEventTable[];
  /**
   * How far the batch covered the range: every event up to here was read or
   * does not exist; the next batch starts after it (0 when the range was
   * empty, `after` at or past `through`).
   */
  scannedThrough: number;
  /** The time of the first event kept for a live run (null when none); its type's pruned-before mark stays below it. */
  firstKeptAt: number | null;
  /** Each live run's first kept event in the batch, oldest first. */
  kept: KeptEvent[];
}

/**
 * Reads one batch of events to prune, oldest first: the events of the
 * types asked for among the next `limit` sequence numbers of the range,
 * less those of a run that has not ended (the kernel reads a live run's
 * events back, such as a row's edit or a call it recorded, for as long as
 * the run lasts, however old they are); an event of no run (a policy
 * change) or of a pruned run goes with its window.
 *
 * The batch is a window of the log's primary key, `seq > after and seq <=
 * after + limit`, so it reads at most `limit` rows whatever their types and
 * whatever it keeps: a run kept open for months, or a long stretch of events
 * of the other kind (the audit records among lifecycle events, or the other
 * way round), costs each batch no more than its size. A window with nothing
 * of those types looks up where the next event is (one row), so a stretch of
 * numbers already pruned is crossed at once.
 */
export async function eventsToPrune(reader: Reader, batch: EventBatch): Promise<PruneBatch> {
  if (batch.after >= batch.through) {
    return { rows: [], scannedThrough: 0, firstKeptAt: null, kept: [] };
  }
  const end = Math.min(batch.through, batch.after + Math.max(1, batch.limit));
  const db = reader[SQL].db;
  const rows = await db
    .selectFrom('run_events')
    .leftJoin('runs', (join) =>
      join.onRef('runs.id', '=', 'run_events.run_id').on('runs.ended_at', 'is', null),
    )
    .selectAll('run_events')
    .select('runs.id as live_run')
    .where('run_events.workspace_id', '=', batch.workspaceId)
    .where('run_events.seq', '>', batch.after)
    .where('run_events.seq', '<=', end)
    .where('run_events.type', 'only' in batch.types ? 'in' : 'not in', [
      ...('only' in batch.types ? batch.types.only : batch.types.except),
    ])
    .orderBy('run_events.seq')
    .execute();
  const prunable: RunEventTable[] = [];
  const kept: KeptEvent[] = [];
  const keptRuns = new Set<string>();
  for (const { live_run, ...row } of rows) {
    if (live_run === null) prunable.push(row);
    else if (!keptRuns.has(live_run)) {
      keptRuns.add(live_run);
      kept.push({ runId: live_run, seq: Number(row.seq), createdAt: Number(row.created_at) });
    }
  }
  let scannedThrough = end;
  if (rows.length === 0 && end < batch.through) {
    // Nothing of these types here: the next window starts at the next event of any type.
    const next = await db
      .selectFrom('run_events')
      .select('seq')
      .where('workspace_id', '=', batch.workspaceId)
      .where('seq', '>', end)
      .orderBy('seq')
      .limit(rowLimit(1))
      .executeTakeFirst();
    scannedThrough = next
      ? Math.min(batch.through, Math.max(end, Number(next.seq) - 1))
      : batch.through;
  }
  return { rows: prunable, scannedThrough, firstKeptAt: kept[0]?.createdAt ?? null, kept };
}

/** A bounded page of one run's events between two sequence numbers. */
export interface RunEventBatch {
  runId: string;
  after: number;
  through: number;
  types: EventTypes;
  /** Most events the batch reads, whatever their types. */
  limit: number;
}

/**
 * Reads one batch of a run's events to prune (by the run's index), oldest
 * first: those of the types asked for among the run's next `limit` events
 * of the range, whatever their types, for a run that was live when the
 * sweep passed its events and has ended since (or was pruned: its audit
 * records outlive it). `scannedThrough` is as for eventsToPrune.
 */
export async function runEventsToPrune(
  reader: Reader,
  batch: RunEventBatch,
): Promise<{ rows: RunEventTable[]; scannedThrough: number }> {
  if (batch.after >= batch.through) return { rows: [], scannedThrough: 0 };
  const limit = Math.max(1, batch.limit);
  // By run id alone (ids are unique in the store): the run's own index, not the workspace's log.
  const rows = await reader[SQL].db
    .selectFrom('run_events')
    .selectAll()
    .where('run_id', '=', batch.runId)
    .where('seq', '>', batch.after)
    .where('seq', '<=', batch.through)
    .orderBy('seq')
    .limit(rowLimit(limit))
    .execute();
  const last = rows[rows.length - 1];
  return {
    rows: rows.filter((row) => ofTypes(row.type, batch.types)),
    scannedThrough: rows.length < limit || !last ? batch.through : Number(last.seq),
  };
}

/** Which of these runs have not ended (a run no longer in the store has). */
export async function liveRunsAmong(
  reader: Reader,
  runIds: readonly string[],
): Promise<Set<string>> {
  const live = new Set<string>();
  for (let from = 0; from < runIds.length; from += 500) {
    const rows = await reader[SQL].db
      .selectFrom('runs')
      .select('id')
      .where('id', 'in', runIds.slice(from, from + 500))
      .where('ended_at', 'is', null)
      .execute();
    for (const row of rows) live.add(row.id);
  }
  return live;
}

/** Deletes events by sequence number, in the caller's unit of work, and moves the workspace's pruned position past them. */
export async function deleteEvents(
  tx: Tx,
  workspaceId: string,
  seqs: readonly number[],
): Promise<void> {
  if (seqs.length === 0) return;
  let highest = 0;
  for (const seq of seqs) highest = Math.max(highest, seq);
  await tx[SQL].db
    .deleteFrom('run_events')
    .where('workspace_id', '=', workspaceId)
    .where('seq', 'in', [...seqs])
    .execute();
  await tx[SQL].db
    .updateTable('retention_policies')
    .set((eb) => ({
      pruned_through: eb
        .case()
        .when('pruned_through', '<', highest)
        .then(highest)
        .else(eb.ref('pruned_through'))
        .end(),
    }))
    .where('workspace_id', '=', workspaceId)
    .execute();
}

/** Records that every non-audit event written before `before` is gone. */
export async function markEventsPrunedBefore(
  store: Store,
  workspaceId: string,
  before: number,
): Promise<void> {
  await store.db
    .updateTable('retention_policies')
    .set({ events_pruned_before: before })
    .where('workspace_id', '=', workspaceId)
    .where('events_pruned_before', '<', before)
    .execute();
}
