import { CompiledQuery, type Transaction } from 'kysely';
import type { Dialect } from './migrations.js';
import { runPrepared } from './prepared.js';
import type { Database, EventType, RunEventTable } from './schema.js';

/** An event waiting in a transaction; it gets its sequence number when the transaction ends. */
export interface PendingEvent {
  workspace_id: string;
  run_id: string;
  task_key?: string | null;
  type: EventType;
  data?: Record<string, unknown>;
  principal?: string | null;
}

/** A committed event as stored. */
export type StoredEvent = RunEventTable;

const EVENT_COLUMNS = [
  'workspace_id',
  'seq',
  'run_id',
  'task_key',
  'type',
  'data',
  'principal',
  'created_at',
] as const satisfies readonly (keyof StoredEvent)[];

/** Most event rows one SQLite INSERT carries (8 parameters each, under SQLite's limit). */
const SQLITE_ROWS_PER_INSERT = 200;

/**
 * PostgreSQL: the sequence bump, the NOTIFY and every event row of one
 * workspace in one statement (one network round trip). The workspace row is
 * locked by the UPDATE, so sequence numbers are handed out in commit order
 * and without gaps, which the feed relies on; being the transaction's last
 * statement, it holds that lock only until the COMMIT that follows.
 */
const POSTGRES_APPEND = `with bumped as (
  update workspaces set event_seq = event_seq + $2::bigint where id = $1
  returning event_seq, pg_notify('airlock_events', $1)
)
insert into run_events (workspace_id, seq, run_id, task_key, type, data, principal, created_at)
select $1, bumped.event_seq - $2::bigint + e.ord, e.run_id, e.task_key, e.type, e.data, e.principal, $3::bigint
from bumped, unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
  with ordinality as e(run_id, task_key, type, data, principal, ord)
returning seq`;

/**
 * Appends a transaction's events to the log, sequenced per workspace after
 * everything else the transaction wrote, and returns the rows as stored.
 * @throws Error when an event names a workspace that does not exist.
 */
export async function appendEvents(options: {
  trx: Transaction<Database>;
  dialect: Dialect;
  events: readonly PendingEvent[];
  now: number;
}): Promise<StoredEvent[]> {
  const { trx, dialect, events, now } = options;
  if (events.length === 0) return [];
  const byWorkspace = new Map<string, PendingEvent[]>();
  for (const event of events) {
    const list = byWorkspace.get(event.workspace_id);
    if (list) list.push(event);
    else byWorkspace.set(event.workspace_id, [event]);
  }
  const rows: StoredEvent[] = [];
  // Sorted so two transactions always take workspace row locks in the same order.
  const workspaces =
    byWorkspace.size === 1 ? [...byWorkspace.keys()] : [...byWorkspace.keys()].sort();
  for (const workspaceId of workspaces) {
    const list = byWorkspace.get(workspaceId)!;
    const written = list.map(
      (event): StoredEvent => ({
        workspace_id: workspaceId,
        seq: 0,
        run_id: event.run_id,
        task_key: event.task_key ?? null,
        type: event.type,
        data: JSON.stringify(event.data ?? {}),
        principal: event.principal ?? null,
        created_at: now,
      }),
    );
    const last =
      dialect === 'postgres'
        ? await appendPostgres(trx, workspaceId, written, now)
        : await appendSqlite(trx, workspaceId, written);
    let seq = last - written.length;
    for (const row of written) {
      seq += 1;
      row.seq = seq;
    }
    rows.push(...written);
  }
  return rows;
}

/** Bumps the workspace's counter and inserts the rows; returns the last sequence number. */
async function appendPostgres(
  trx: Transaction<Database>,
  workspaceId: string,
  rows: readonly StoredEvent[],
  now: number,
): Promise<number> {
  const result = await trx.executeQuery<{ seq: number }>(
    CompiledQuery.raw(POSTGRES_APPEND, [
      workspaceId,
      rows.length,
      now,
      rows.map((row) => row.run_id),
      rows.map((row) => row.task_key),
      rows.map((row) => row.type),
      rows.map((row) => row.data),
      rows.map((row) => row.principal),
    ]),
  );
  if (result.rows.length !== rows.length) throw new Error(`no workspace ${workspaceId}`);
  let last = 0;
  for (const row of result.rows) last = Math.max(last, Number(row.seq));
  return last;
}

/**
 * SQLite: the bump with RETURNING, then one multi-row INSERT per 200 rows.
 * SQLite has one writer at a time, so the order is that of the commits.
 */
async function appendSqlite(
  trx: Transaction<Database>,
  workspaceId: string,
  rows: readonly StoredEvent[],
): Promise<number> {
  const { rows: bumped } = await runPrepared(
    trx,
    'sqlite',
    'workspaces.bump_seq',
    (p) =>
      trx
        .updateTable('workspaces')
        .set((eb) => ({ event_seq: eb('event_seq', '+', p('count')) }))
        .where('id', '=', p('id'))
        .returning('event_seq'),
    { id: workspaceId, count: rows.length },
  );
  if (!bumped[0]) throw new Error(`no workspace ${workspaceId}`);
  const last = bumped[0].event_seq;
  let seq = last - rows.length;
  for (let i = 0; i < rows.length; i += SQLITE_ROWS_PER_INSERT) {
    const chunk = rows.slice(i, i + SQLITE_ROWS_PER_INSERT);
    const values: Record<string, unknown> = {};
    chunk.forEach((row, n) => {
      seq += 1;
      for (const column of EVENT_COLUMNS) {
        values[`${n}:${column}`] = column === 'seq' ? seq : row[column];
      }
    });
    await runPrepared(
      trx,
      'sqlite',
      `run_events.insert:${chunk.length}`,
      (p) =>
        trx
          .insertInto('run_events')
          .values(
            chunk.map((_, n) =>
              Object.fromEntries(EVENT_COLUMNS.map((column) => [column, p(`${n}:${column}`)])),
            ) as unknown as StoredEvent[],
          ),
      values,
    );
  }
  return last;
}
