import { type EventGroup, sequence } from '../event-log.js';
import type { Statement } from '../prepared.js';

/**
 * PostgreSQL: the sequence bump, the NOTIFY and every event row of one
 * workspace in one statement. The NOTIFY names the workspace and the last
 * sequence number the transaction takes (`ws_… 42`), so that a listener
 * already past it (the process that committed) does not read the log again. The workspace row is locked by the UPDATE, so
 * sequence numbers are handed out in commit order and without gaps, which
 * the feed relies on; sent in the same write as the COMMIT, it holds that
 * lock for one round trip. Without the workspace row, `seq` is null and the
 * insert fails, so the COMMIT after it rolls everything back.
 */
const POSTGRES_APPEND = `with bumped as (
  update workspaces set event_seq = event_seq + $2::bigint where id = $1
  returning event_seq, pg_notify('airlock_events', $1::text || ' ' || event_seq::text)
)
insert into run_events (workspace_id, seq, run_id, task_key, type, data, principal, created_at)
select $1, bumped.event_seq - $2::bigint + e.ord, e.run_id, e.task_key, e.type, e.data, e.principal, $3::bigint
from unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
  with ordinality as e(run_id, task_key, type, data, principal, ord)
  left join bumped on true
returning seq`;

/** PostgreSQL: the one statement that appends a group (see POSTGRES_APPEND). */
export function postgresAppend(group: EventGroup, now: number): Statement {
  const { rows } = group;
  return {
    sql: POSTGRES_APPEND,
    parameters: [
      group.workspaceId,
      rows.length,
      now,
      rows.map((row) => row.run_id),
      rows.map((row) => row.task_key),
      rows.map((row) => row.type),
      rows.map((row) => row.data),
      rows.map((row) => row.principal),
    ],
  };
}

/**
 * PostgreSQL: numbers a group's rows from what its statement returned.
 * @throws Error when the workspace does not exist (nothing was inserted).
 */
export function sequencePostgres(group: EventGroup, returned: readonly unknown[]): void {
  if (returned.length !== group.rows.length) throw new Error(`no workspace ${group.workspaceId}`);
  let last = 0;
  for (const row of returned as { seq: number | string }[]) last = Math.max(last, Number(row.seq));
  sequence(group, last);
}
