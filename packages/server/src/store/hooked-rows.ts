import { sql } from 'kysely';
import { OPEN_CALL_STATES } from './hooked-lookups-migration.js';
import { type PreparedQuery, readAhead, runPrepared } from './prepared.js';
import type { Reader } from './reader.js';
import { rowLimit } from './row-limit.js';
import type { TaskTable } from './schema.js';
import { SQL } from './sql-handle.js';
import type { Tx } from './store.js';
import { stateLiteral } from './tasks.js';

/**
 * The reads of task rows a hooked session's events make (kernel/hooks/hooked-calls.ts,
 * hooked-reports.ts, unreported-calls.ts and hooked-sessions.ts): the agent runs its calls
 * itself and reports them by its own call id, or by what they were.
 */

function modelRowByCallIdQuery(reader: Reader, runId: string, toolUseId: string): PreparedQuery {
  const { db } = reader[SQL];
  return {
    key: 'tasks.model_by_call_id',
    build: (p) =>
      db
        .selectFrom('tasks')
        .selectAll()
        .where('run_id', '=', p('run_id'))
        .where('tool_call_id', '=', p('tool_call_id'))
        .where('origin', '=', 'model')
        .orderBy('created_at', 'desc')
        .limit(rowLimit(1)),
    values: { run_id: runId, tool_call_id: toolUseId },
  };
}

/** A run's newest model row of the agent's call id; undefined when there is none. */
export async function findModelRowByCallId(
  reader: Reader,
  runId: string,
  toolUseId: string,
): Promise<TaskTable | undefined> {
  return firstRow(reader, modelRowByCallIdQuery(reader, runId, toolUseId));
}

/** The call a hooked agent reported: its tool, its input as JSON text, the states to look in. */
export interface IdenticalCall {
  toolName: string;
  toolInputJson: string;
  states: readonly ('runnable' | 'needs_approval' | 'claimed')[];
}

function identicalModelCallQuery(
  reader: Reader,
  runId: string,
  call: IdenticalCall,
): PreparedQuery {
  const { db } = reader[SQL];
  return {
    // A prepared statement per set of states (the states are literals, as the index's condition is).
    key: `tasks.identical_model_call:${call.states.join(',')}`,
    build: (p) =>
      db
        .selectFrom('tasks')
        .selectAll()
        .where('run_id', '=', p('run_id'))
        .where('origin', '=', sql.lit('model'))
        // A literal, not a parameter (see stateLiteral): `kind` is in a partial index's condition.
        .where('kind', '=', sql.lit('tool'))
        // The index's own condition, word for word, so that SQLite uses it (tasks_open_by_tool).
        .where(
          'state',
          'in',
          OPEN_CALL_STATES.map((s) => stateLiteral(s)),
        )
        .where(
          'state',
          'in',
          call.states.map((s) => stateLiteral(s)),
        )
        .where('tool_name', '=', p('tool_name'))
        .where('tool_input', '=', p('tool_input'))
        .orderBy('created_at')
        .limit(rowLimit(1)),
    values: { run_id: runId, tool_name: call.toolName, tool_input: call.toolInputJson },
  };
}

/**
 * A run's oldest model tool row of the same tool and the same input resting
 * in one of `states`; undefined when there is none.
 */
export async function findIdenticalModelCall(
  reader: Reader,
  runId: string,
  call: IdenticalCall,
): Promise<TaskTable | undefined> {
  return firstRow(reader, identicalModelCallQuery(reader, runId, call));
}

async function firstRow(reader: Reader, query: PreparedQuery): Promise<TaskTable | undefined> {
  const { db, dialect } = reader[SQL];
  const { rows } = await runPrepared<TaskTable>(db, dialect, query.key, query.build, query.values);
  return rows[0];
}

/** The two lookups of a reported call, read ahead (see {@link readCallLookupsAhead}). */
export interface CallLookupsAhead {
  byCallId: Promise<TaskTable[]> | null;
  identical: Promise<TaskTable[]>;
}

/**
 * On PostgreSQL, sends a hooked call's two lookups (its row by the agent's
 * call id, when it has one; an identical open call) with the unit's next
 * statement, the lock of its run (see `readAhead`); undefined on SQLite.
 */
export function readCallLookupsAhead(
  tx: Tx,
  runId: string,
  call: IdenticalCall & { toolUseId: string | null },
): CallLookupsAhead | undefined {
  const { db, dialect } = tx[SQL];
  const identical = readAhead<TaskTable>(db, dialect, identicalModelCallQuery(tx, runId, call));
  if (!identical) return undefined;
  const byCallId =
    call.toolUseId === null
      ? null
      : (readAhead<TaskTable>(db, dialect, modelRowByCallIdQuery(tx, runId, call.toolUseId)) ??
        null);
  return { byCallId, identical };
}

/** A run's claimed model rows (unordered). */
export async function listClaimedModelRows(reader: Reader, runId: string): Promise<TaskTable[]> {
  return reader[SQL].db
    .selectFrom('tasks')
    .selectAll()
    .where('run_id', '=', runId)
    .where('origin', '=', 'model')
    .where('state', '=', stateLiteral('claimed'))
    .execute();
}

/** The keys of a run's rows resting on a person (parked or asking). */
export async function listWaitingKeys(reader: Reader, runId: string): Promise<string[]> {
  const rows = await reader[SQL].db
    .selectFrom('tasks')
    .select('key')
    .where('run_id', '=', runId)
    .where('state', 'in', ['needs_approval', 'awaiting_input'])
    .execute();
  return rows.map((row) => row.key);
}

/** What a run's model row was asked for: the agent's call id (if any), the tool, its input. */
export interface ModelCall {
  key: string;
  tool_call_id: string | null;
  tool_name: string;
  /** The input as the row keeps it (JSON text). */
  tool_input: string;
}

/** The calls of a run's model rows, in any state, oldest first. */
export async function listModelCalls(reader: Reader, runId: string): Promise<ModelCall[]> {
  return reader[SQL].db
    .selectFrom('tasks')
    .select(['key', 'tool_call_id', 'tool_name', 'tool_input'])
    .where('run_id', '=', runId)
    .where('origin', '=', 'model')
    .orderBy('created_at')
    .execute();
}
