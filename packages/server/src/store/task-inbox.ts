import type { RunState } from '@airlock/core';
import { sql } from 'kysely';
import { claimedForUpdate, DIALECT_TRAITS } from './dialect.js';
import { type Param, type PreparedQuery, readAhead, runPrepared } from './prepared.js';
import type { Reader } from './reader.js';
import { rowLimit } from './row-limit.js';
import type { TaskTable } from './schema.js';
import { SQL } from './sql-handle.js';
import type { Store, Tx } from './store.js';
import { stateLiteral } from './tasks.js';

/**
 * The executor plane's reads of task rows: its inbox, one row it addresses,
 * and the candidates of a claim. Their moves go through the task machine.
 */

/** An executor's application: its own runs and the runs of no application are its work. */
export interface InboxOwner {
  workspaceId: string;
  /** The executor's agent application; null for an executor of the whole workspace. */
  applicationId: string | null;
}

/**
 * True of a row a claimed call holds back by its sequential tool: the claim
 * lock `tool:<run>:<tool>` (written by `sequentialLockKey`) belongs to a row
 * still claimed. Such a row cannot be claimed now, so a claim or the inbox
 * looks past it.
 */
const heldBySequentialClaim = sql<boolean>`exists (select 1 from claim_locks
  inner join tasks as holder on holder.run_id = claim_locks.run_id and holder.key = claim_locks.task_key
  where claim_locks.workspace_id = tasks.workspace_id
  and claim_locks.lock_key = 'tool:' || tasks.run_id || ':' || coalesce(tasks.resolved_tool_name, tasks.tool_name)
  and holder.state = 'claimed')`;

/**
 * True of an agent's own call in a hooked session's turn (`runs.loop` is
 * `hooked`: coding agents and framework adapters), where the agent runs its
 * calls itself (`takeForAgent`). No executor runs such a row; the run's
 * lifecycle hook rows stay an executor's work.
 */
export const agentRunsCall = sql<boolean>`(tasks.kind = 'tool' and tasks.origin = 'model' and exists (
  select 1 from runs as own_run where own_run.id = tasks.run_id and own_run.loop = 'hooked'))`;

/**
 * An executor's inbox rows, oldest first: runnable work of its runs it may
 * claim now (no summarizer rows, no row a sequential tool's claim holds
 * back, no hooked agent's own call), and parks and questions addressed to
 * its application.
 */
export async function listInboxRows(
  store: Store,
  owner: InboxOwner & { limit: number },
): Promise<TaskTable[]> {
  const app = owner.applicationId;
  return store.db
    .selectFrom('tasks')
    .innerJoin('runs', 'runs.id', 'tasks.run_id')
    .selectAll('tasks')
    .where('tasks.workspace_id', '=', owner.workspaceId)
    .where((eb) => {
      const mine = app
        ? eb.or([
            eb('runs.agent_application_id', 'is', null),
            eb('runs.agent_application_id', '=', app),
          ])
        : eb.val(true);
      const decisions = app
        ? eb.and([
            eb('tasks.state', 'in', [
              stateLiteral('needs_approval'),
              stateLiteral('awaiting_input'),
            ]),
            eb('tasks.addressee', '=', app),
          ])
        : eb.val(false);
      const work = eb.and([
        eb('tasks.state', '=', stateLiteral('runnable')),
        eb('tasks.kind', '!=', sql.lit('summary')),
        mine,
        eb.not(heldBySequentialClaim),
        eb.not(agentRunsCall),
      ]);
      return eb.or([work, decisions]);
    })
    .orderBy('tasks.created_at')
    .limit(rowLimit(owner.limit))
    .execute();
}

/**
 * A row with the state of its run (for the task machine's run guard) and
 * whether the run froze policy layers (PostgreSQL answers a boolean, SQLite 0 or 1).
 */
export type TaskWithRun = TaskTable & { run_state: RunState; run_has_layers: boolean | number };

/** A row an executor addresses, with its run's application. */
export type VisibleRow = TaskWithRun & { run_app: string | null };

/** Where a row is: its workspace, run and key. */
export interface RowAddress {
  workspaceId: string;
  runId: string;
  key: string;
}

const runHasLayers = sql<boolean | number>`(runs.policy_layers is not null)`;

function visibleTaskQuery(tx: Tx, address: RowAddress): PreparedQuery {
  return {
    key: 'tasks.visible',
    build: (p) =>
      tx[SQL].db
        .selectFrom('tasks')
        .innerJoin('runs', 'runs.id', 'tasks.run_id')
        .selectAll('tasks')
        .select(['runs.agent_application_id as run_app', 'runs.state as run_state'])
        .select(runHasLayers.as('run_has_layers'))
        .where('tasks.run_id', '=', p('run_id'))
        .where('tasks.key', '=', p('key'))
        .where('tasks.workspace_id', '=', p('workspace_id')),
    values: { run_id: address.runId, key: address.key, workspace_id: address.workspaceId },
  };
}

/** Reads a row an executor addresses (none, or one). */
export async function readVisibleTask(tx: Tx, address: RowAddress): Promise<VisibleRow[]> {
  const { key, build, values } = visibleTaskQuery(tx, address);
  return (await runPrepared<VisibleRow>(tx[SQL].db, tx[SQL].dialect, key, build, values)).rows;
}

/**
 * On PostgreSQL, sends the read of a row an executor addresses with the
 * unit's next statement (see `readAhead`); undefined on SQLite.
 */
export function readVisibleTaskAhead(
  tx: Tx,
  address: RowAddress,
): Promise<VisibleRow[]> | undefined {
  return readAhead<VisibleRow>(tx[SQL].db, tx[SQL].dialect, visibleTaskQuery(tx, address));
}

/** Where a claim's walk through its candidates got to: the last row read, in their order. */
export interface CandidateCursor {
  createdAt: number;
  runId: string;
  key: string;
}

/** A row's key `t<n>` orders by its length, then its text: t2 before t10, as the calls were made. */
const keyLength = sql<number>`length(tasks.key)`;

/** How many candidates one read of a claim takes (see `claimCandidates`). */
export const CANDIDATE_PAGE = 16;

/**
 * Up to `CANDIDATE_PAGE` runnable rows an executor may claim, oldest first,
 * after `after` when given (no summarizer rows; only these tool names when
 * given). Rows a claimed call holds back by their sequential tool's lock are
 * left out here, so one run's chain never hides the rows behind it; rows of
 * a run whose loop is outside the kernel (a hooked session: its agent runs
 * its calls itself) are never candidates. On PostgreSQL the first row is the
 * oldest no other unit has locked, read FOR UPDATE SKIP LOCKED, so several
 * kernels hand out different rows; the rows after it are read without a
 * lock (a claim's conditional move decides them). Locking the whole page
 * made each claim hold sixteen rows, and the claims made meanwhile answered
 * null while rows waited (one of eight concurrent claims got a row).
 */
export async function claimCandidates(
  tx: Reader,
  owner: InboxOwner & { toolNames?: readonly string[] | undefined },
  after?: CandidateCursor,
): Promise<TaskWithRun[]> {
  const toolNames = owner.toolNames ?? [];
  const app = owner.applicationId;
  const values: Record<string, unknown> = { workspace_id: owner.workspaceId };
  toolNames.forEach((name, i) => {
    values[`tool_${i}`] = name;
  });
  if (app !== null) values.app = app;
  if (after) {
    values.after_created_at = after.createdAt;
    values.after_run_id = after.runId;
    values.after_key = after.key;
    values.after_key_length = after.key.length;
  }
  const shape = `${app === null ? 'all' : 'app'}:${toolNames.length}:${after ? 'after' : 'first'}`;
  const build = (limit: number, locked: boolean) => (p: Param) =>
    tx[SQL].db
      .selectFrom('tasks')
      .selectAll('tasks')
      // Rows of ended runs are canceled at the end; the state machine checks the run anyway.
      .select(
        sql<RunState>`(select runs.state from runs where runs.id = tasks.run_id)`.as('run_state'),
      )
      .select(
        sql<
          boolean | number
        >`(select runs.policy_layers is not null from runs where runs.id = tasks.run_id)`.as(
          'run_has_layers',
        ),
      )
      .where('tasks.workspace_id', '=', p('workspace_id'))
      .where('tasks.state', '=', stateLiteral('runnable'))
      .where('tasks.kind', '!=', sql.lit('summary'))
      .$if(toolNames.length > 0, (qb) =>
        qb.where(
          'tasks.tool_name',
          'in',
          toolNames.map((_, i) => p(`tool_${i}`)),
        ),
      )
      .$if(app !== null, (qb) =>
        qb.where((eb) =>
          eb.exists(
            eb
              .selectFrom('runs')
              .select('runs.id')
              .whereRef('runs.id', '=', 'tasks.run_id')
              .where((e) =>
                e.or([
                  e('runs.agent_application_id', 'is', null),
                  e('runs.agent_application_id', '=', p('app')),
                ]),
              ),
          ),
        ),
      )
      .$if(after !== undefined, (qb) =>
        qb
          .where('tasks.created_at', '>=', p('after_created_at'))
          .where((eb) =>
            eb.or([
              eb('tasks.created_at', '>', p('after_created_at')),
              eb('tasks.run_id', '>', p('after_run_id')),
              eb.and([
                eb('tasks.run_id', '=', p('after_run_id')),
                eb.or([
                  eb(keyLength, '>', p('after_key_length')),
                  eb.and([
                    eb(keyLength, '=', p('after_key_length')),
                    eb('tasks.key', '>', p('after_key')),
                  ]),
                ]),
              ]),
            ]),
          ),
      )
      .where((eb) => eb.not(heldBySequentialClaim))
      .where((eb) => eb.not(agentRunsCall))
      .orderBy('tasks.created_at')
      .orderBy('tasks.run_id')
      .orderBy(keyLength)
      .orderBy('tasks.key')
      .limit(rowLimit(limit))
      .$call((qb) => (locked ? claimedForUpdate(tx[SQL].dialect, qb) : qb));
  const { db, dialect } = tx[SQL];
  const read = async (query: PreparedQuery) =>
    (await runPrepared<TaskWithRun>(db, dialect, query.key, query.build, query.values)).rows;
  const page = (limit: number): PreparedQuery => ({
    key: `tasks.claim_candidates:${shape}:${limit}`,
    build: build(limit, false),
    values,
  });
  // One process owns a SQLite store and its units run one at a time: nothing to lock.
  if (!DIALECT_TRAITS[dialect].sharedByProcesses) return read(page(CANDIDATE_PAGE));
  // The page goes out in the same write as the locked read, right after it.
  const ahead = page(LOCK_AHEAD_PAGE);
  const pageRows = readAhead<TaskWithRun>(db, dialect, ahead);
  const locked = { key: `tasks.claim_candidates.locked:${shape}`, build: build(1, true), values };
  const first = (await read(locked))[0];
  const rows = await (pageRows ?? read(ahead));
  if (!first) return [];
  // Rows before it in the page are other units' (locked): the walk goes on from it.
  const at = rows.findIndex((row) => row.run_id === first.run_id && row.key === first.key);
  return [first, ...(at < 0 ? [] : rows.slice(at + 1))].slice(0, CANDIDATE_PAGE);
}

/**
 * How many rows the unlocked page reads on PostgreSQL: the page, and as many
 * again for the rows other claims have locked ahead of the first free one.
 */
const LOCK_AHEAD_PAGE = 2 * CANDIDATE_PAGE;

/**
 * Whether a row is an agent's own call in a hooked session (see
 * `agentRunsCall`): the agent runs it, never an executor.
 */
export async function isAgentsOwnCall(tx: Reader, address: RowAddress): Promise<boolean> {
  const db = tx[SQL].db;
  const { rows } = await runPrepared<{ own: number }>(
    db,
    tx[SQL].dialect,
    'tasks.agent_runs_call',
    (p) =>
      db
        .selectFrom('tasks')
        .select(sql<number>`1`.as('own'))
        .where('tasks.run_id', '=', p('run_id'))
        .where('tasks.key', '=', p('key'))
        .where('tasks.workspace_id', '=', p('workspace_id'))
        .where(agentRunsCall),
    { run_id: address.runId, key: address.key, workspace_id: address.workspaceId },
  );
  return rows.length > 0;
}
