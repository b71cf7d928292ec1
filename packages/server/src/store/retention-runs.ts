import { lockedForUpdate } from './dialect.js';
import type { DeliveryRow } from './notifications.js';
import type { EventTypes } from './retention.js';
import { rowLimit } from './row-limit.js';
import type {
  ConversationTable,
  EventType,
  HookSessionTable,
  OverlayDocumentTable,
  RunEventTable,
  TaskApprovalTable,
  TaskTable,
} from './schema.js';
import { SQL } from './sql-handle.js';
import type { Store, Tx } from './store.js';

/**
 * The retention repository's side of ended runs: the bounded batches of
 * runs the pruner reads with everything keyed by them, and the deletes that
 * remove them all in the caller's unit of work, leaving no row behind that
 * names a pruned run, nor a conversation whose last run was pruned.
 *
 * Run ids are unique in the store, so rows are found by run id alone: a
 * workspace condition beside it would let SQLite walk a workspace-wide index
 * instead of the run's (one batch reading the whole table).
 */

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

/** A bounded page of these runs' events after a sequence number, of some types or all others. */
export async function eventsOfRuns(
  store: Store,
  options: { runIds: readonly string[]; types: EventTypes; after: number; limit: number },
): Promise<RunEventTable[]> {
  const only = 'only' in options.types;
  return store.db
    .selectFrom('run_events')
    .selectAll()
    .where('run_id', 'in', [...options.runIds])
    .where('seq', '>', options.after)
    .where('type', only ? 'in' : 'not in', [
      ...('only' in options.types ? options.types.only : options.types.except),
    ])
    .orderBy('seq')
    .limit(rowLimit(options.limit))
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

/** A conversation whose every run is among the ones being pruned, with what hangs on it alone. */
export interface EndingConversation {
  conversation: ConversationTable;
  hookSessions: HookSessionTable[];
  overlay: OverlayDocumentTable | null;
}

/**
 * The conversations of these runs that no other run belongs to (so they end
 * with them), each with its hooked sessions and its conversation overlay.
 */
export async function conversationsEndingWith(
  store: Store,
  options: { workspaceId: string; runIds: readonly string[]; conversationIds: readonly string[] },
): Promise<EndingConversation[]> {
  if (options.conversationIds.length === 0) return [];
  const conversations = await store.db
    .selectFrom('conversations')
    .selectAll()
    .where('id', 'in', [...options.conversationIds])
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('runs')
            .select('runs.id')
            .whereRef('runs.conversation_id', '=', 'conversations.id')
            .where('runs.id', 'not in', [...options.runIds]),
        ),
      ),
    )
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  if (conversations.length === 0) return [];
  const ids = conversations.map((conversation) => conversation.id);
  const sessions = await store.db
    .selectFrom('hook_sessions')
    .selectAll()
    .where('conversation_id', 'in', ids)
    .orderBy('created_at')
    .execute();
  const overlays = await store.db
    .selectFrom('overlay_documents')
    .selectAll()
    .where('workspace_id', '=', options.workspaceId)
    .where('scope', '=', 'conversation')
    .where('owner_id', 'in', ids)
    .execute();
  return conversations.map((conversation) => ({
    conversation,
    hookSessions: sessions.filter((session) => session.conversation_id === conversation.id),
    overlay: overlays.find((overlay) => overlay.owner_id === conversation.id) ?? null,
  }));
}

/** Writes kept audit events' new data (one statement per event, by primary key). */
export async function stampAuditEvents(
  tx: Tx,
  workspaceId: string,
  updates: readonly EventDataUpdate[],
): Promise<void> {
  for (const update of updates) {
    await tx[SQL].db
      .updateTable('run_events')
      .set({ data: update.data })
      .where('workspace_id', '=', workspaceId)
      .where('seq', '=', update.seq)
      .execute();
  }
}

/**
 * Thrown when a conversation the pruner read as ending changed before its
 * delete: it got a run, or its overlay or hooked sessions changed (what was
 * exported would not be what goes). The unit of work rolls back, deleting nothing.
 */
export class ConversationRevivedError extends Error {
  constructor(readonly conversationIds: readonly string[]) {
    super(
      `retention: ${conversationIds.length} conversation(s) changed after they were read (${conversationIds.join(', ')}); the batch is read again`,
    );
    this.name = 'ConversationRevivedError';
  }
}

/**
 * Locks the conversations about to go (on PostgreSQL, until the unit
 * commits: a new run or overlay on one waits for the delete, then finds it
 * gone), then checks each is still as read: no run outside the batch, the
 * same overlay, the same hooked sessions.
 * @throws ConversationRevivedError naming those that changed.
 */
async function assertStillEnding(
  tx: Tx,
  options: {
    workspaceId: string;
    runIds: readonly string[];
    conversations: readonly EndingConversation[];
  },
): Promise<void> {
  const { db, dialect } = tx[SQL];
  const ids = options.conversations.map((ending) => ending.conversation.id);
  const held = await db
    .selectFrom('conversations')
    .select('id')
    .where('id', 'in', ids)
    .orderBy('id')
    .$call((qb) => lockedForUpdate(dialect, qb))
    .execute();
  const withRuns = await db
    .selectFrom('runs')
    .select('conversation_id')
    .where('conversation_id', 'in', ids)
    .where('id', 'not in', [...options.runIds])
    .execute();
  const overlays = await db
    .selectFrom('overlay_documents')
    .select(['owner_id', 'digest'])
    .where('workspace_id', '=', options.workspaceId)
    .where('scope', '=', 'conversation')
    .where('owner_id', 'in', ids)
    .execute();
  const sessions = await db
    .selectFrom('hook_sessions')
    .select(['conversation_id', 'agent', 'session_id'])
    .where('conversation_id', 'in', ids)
    .execute();
  const sessionKeys = (rows: readonly Pick<HookSessionTable, 'agent' | 'session_id'>[]) =>
    rows
      .map((row) => `${row.agent} ${row.session_id}`)
      .sort()
      .join('\n');
  const changed = options.conversations.filter(({ conversation, overlay, hookSessions }) => {
    const id = conversation.id;
    return (
      !held.some((row) => row.id === id) ||
      withRuns.some((row) => row.conversation_id === id) ||
      (overlays.find((row) => row.owner_id === id)?.digest ?? null) !== (overlay?.digest ?? null) ||
      sessionKeys(sessions.filter((row) => row.conversation_id === id)) !==
        sessionKeys(hookSessions)
    );
  });
  if (changed.length > 0) {
    throw new ConversationRevivedError(changed.map((ending) => ending.conversation.id));
  }
}

/** A delivery as the pruner read (and exported) it: what a redelivery or an attempt changes. */
export type ReadDelivery = Pick<DeliveryRow, 'id' | 'state' | 'attempts' | 'updated_at'>;

/**
 * Thrown when runs about to go changed after their events were pruned and
 * their rows read: a notice of theirs was redelivered (or an attempt
 * recorded), or an event naming one was written since. The unit of work
 * rolls back, deleting nothing.
 */
export class RunsChangedError extends Error {
  constructor(readonly runIds: readonly string[]) {
    super(
      `retention: ${runIds.length} run(s) changed after they were read (${runIds.join(', ')}); the batch is read again`,
    );
    this.name = 'RunsChangedError';
  }
}

/**
 * Locks the runs' notification deliveries (on PostgreSQL, until the unit
 * commits: a redelivery, or a delivery worker recording an attempt, waits
 * for the delete and then finds no row), then checks they are as read, none
 * held by a worker (claimed since: a claim writes its lease alone), and
 * that no event other than an audit record names one of the runs (a
 * worker's `notification.delivered` that committed after the events went).
 * @throws RunsChangedError naming the runs that changed.
 */
async function assertRunsAsRead(
  tx: Tx,
  options: {
    runIds: readonly string[];
    deliveries: readonly ReadDelivery[];
    keptTypes: readonly EventType[];
  },
): Promise<void> {
  const { db, dialect } = tx[SQL];
  const runIds = [...options.runIds];
  const now = await db
    .selectFrom('notification_deliveries')
    .select(['id', 'run_id', 'state', 'attempts', 'updated_at', 'lease_until'])
    .where('run_id', 'in', runIds)
    .orderBy('id')
    .$call((qb) => lockedForUpdate(dialect, qb))
    .execute();
  const read = new Map(options.deliveries.map((row) => [row.id, row]));
  const changed = new Set(
    now
      .filter((row) => {
        const before = read.get(row.id);
        return (
          !before ||
          // Held by a worker (a claim writes its lease alone): it may be on its way to the channel.
          (row.lease_until !== null && Number(row.lease_until) > tx.now) ||
          before.state !== row.state ||
          Number(before.attempts) !== Number(row.attempts) ||
          Number(before.updated_at) !== Number(row.updated_at)
        );
      })
      .map((row) => row.run_id),
  );
  const late = await db
    .selectFrom('run_events')
    .select('run_id')
    .distinct()
    .where('run_id', 'in', runIds)
    .where('type', 'not in', [...options.keptTypes])
    .execute();
  for (const row of late) if (row.run_id) changed.add(row.run_id);
  if (changed.size > 0) throw new RunsChangedError([...changed].sort());
}

/**
 * Deletes, in the caller's unit of work, these runs and every row keyed by
 * them (member approvals, notification deliveries, claim locks, task rows;
 * a hooked session that pointed at one forgets it), then the conversations
 * that end with them, as read, with their hooked sessions and conversation
 * overlays. One statement per table, by run id.
 * @throws ConversationRevivedError, before deleting anything, when one of
 *   the conversations changed since it was read (see assertStillEnding).
 * @throws RunsChangedError, before deleting anything, when a delivery of
 *   the runs changed since it was read, or an event other than `keptTypes`
 *   names one of them (see assertRunsAsRead).
 */
export async function deleteRuns(
  tx: Tx,
  options: {
    workspaceId: string;
    runIds: readonly string[];
    conversations: readonly EndingConversation[];
    /** The runs' deliveries as read and exported. */
    deliveries: readonly ReadDelivery[];
    /** The event types kept past the runs (audit records); any other left is a change. */
    keptTypes: readonly EventType[];
  },
): Promise<void> {
  if (options.runIds.length === 0) return;
  await assertRunsAsRead(tx, options);
  if (options.conversations.length > 0) await assertStillEnding(tx, options);
  const db = tx[SQL].db;
  const runIds = [...options.runIds];
  await db
    .updateTable('hook_sessions')
    .set({ run_id: null })
    .where('run_id', 'in', runIds)
    .execute();
  await db.deleteFrom('task_approvals').where('run_id', 'in', runIds).execute();
  await db.deleteFrom('notification_deliveries').where('run_id', 'in', runIds).execute();
  await db.deleteFrom('claim_locks').where('run_id', 'in', runIds).execute();
  await db.deleteFrom('tasks').where('run_id', 'in', runIds).execute();
  await db.deleteFrom('runs').where('id', 'in', runIds).execute();
  if (options.conversations.length === 0) return;
  const conversationIds = options.conversations.map((ending) => ending.conversation.id);
  await db
    .deleteFrom('overlay_documents')
    .where('workspace_id', '=', options.workspaceId)
    .where('scope', '=', 'conversation')
    .where('owner_id', 'in', conversationIds)
    .execute();
  await db.deleteFrom('hook_sessions').where('conversation_id', 'in', conversationIds).execute();
  await db.deleteFrom('conversations').where('id', 'in', conversationIds).execute();
}
