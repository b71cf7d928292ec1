import type { ExpressionBuilder, Kysely } from 'kysely';
import { lockWorkspaceRow } from './accounts.js';
import { type Param, type PreparedQuery, readAhead, runPrepared } from './prepared.js';
import type { Reader } from './reader.js';
import type { ApprovalPolicyTable, Database, TaskTable } from './schema.js';
import { SQL } from './sql-handle.js';
import type { Tx } from './store.js';
import { stateLiteral } from './tasks.js';

/** A workspace's approval policy as stored; an absent one reads as `{}` at version 0. */
export interface ApprovalPolicyRecord {
  policy: Record<string, unknown>;
  version: number;
  updated_by: string | null;
  updated_at: number | null;
}

/** One member's approval of a parked row version. */
export interface ApprovalRecord {
  principal: string;
  created_at: number;
}

function recordOf(row: ApprovalPolicyTable | undefined): ApprovalPolicyRecord {
  if (!row) return { policy: {}, version: 0, updated_by: null, updated_at: null };
  return {
    policy: JSON.parse(row.document) as Record<string, unknown>,
    version: row.version,
    updated_by: row.updated_by,
    updated_at: row.updated_at,
  };
}

const POLICY_READ = 'approval_policies.read';

/** The prepared read of a workspace's approval policy (its one parameter: `workspace_id`). */
const readPolicy = (db: Kysely<Database>) => (p: Param) =>
  db.selectFrom('approval_policies').selectAll().where('workspace_id', '=', p('workspace_id'));

/** Reads a workspace's approval policy. */
export async function readApprovalPolicy(
  reader: Reader,
  workspaceId: string,
): Promise<ApprovalPolicyRecord> {
  const { db, dialect } = reader[SQL];
  const { rows } = await runPrepared(db, dialect, POLICY_READ, readPolicy(db), {
    workspace_id: workspaceId,
  });
  return recordOf(rows[0] as ApprovalPolicyTable | undefined);
}

/**
 * A workspace's approval policy read to be replaced in this unit: the
 * workspace's row is locked first (lockWorkspaceRow), so two replacements
 * take turns, the second checks its expected version against the first's
 * write, and no two writes take the same version number.
 */
export async function readApprovalPolicyToReplace(
  tx: Tx,
  workspaceId: string,
): Promise<ApprovalPolicyRecord> {
  await lockWorkspaceRow(tx, workspaceId);
  return readApprovalPolicy(tx, workspaceId);
}

/** Per unit of work, each workspace's policy as that unit first read it. */
const policyOfUnit = new WeakMap<Tx, Map<string, Promise<ApprovalPolicyRecord>>>();

/**
 * Reads a workspace's approval policy once per unit of work, so a round that
 * parks many calls reads it once. Only for units that do not replace the policy.
 */
export function readApprovalPolicyOnce(tx: Tx, workspaceId: string): Promise<ApprovalPolicyRecord> {
  let read = policyOfUnit.get(tx);
  if (!read) {
    read = new Map();
    policyOfUnit.set(tx, read);
  }
  let record = read.get(workspaceId);
  if (!record) {
    // A prepared statement: this read is on the path of every park.
    const { db, dialect } = tx[SQL];
    record = Promise.resolve(
      runPrepared(db, dialect, POLICY_READ, readPolicy(db), { workspace_id: workspaceId }),
    ).then(({ rows }) => recordOf(rows[0] as ApprovalPolicyTable | undefined));
    read.set(workspaceId, record);
  }
  return record;
}

/**
 * Replaces a workspace's approval policy (the caller checked it) and returns
 * the stored record; the version counts replacements.
 */
export async function writeApprovalPolicy(
  tx: Tx,
  options: { workspaceId: string; policy: Record<string, unknown>; principal: string },
): Promise<ApprovalPolicyRecord> {
  const current = await readApprovalPolicyToReplace(tx, options.workspaceId);
  const version = current.version + 1;
  const document = JSON.stringify(options.policy);
  if (current.version === 0) {
    await tx[SQL].db
      .insertInto('approval_policies')
      .values({
        workspace_id: options.workspaceId,
        document,
        version,
        updated_by: options.principal,
        updated_at: tx.now,
      })
      .execute();
  } else {
    await tx[SQL].db
      .updateTable('approval_policies')
      .set({ document, version, updated_by: options.principal, updated_at: tx.now })
      .where('workspace_id', '=', options.workspaceId)
      .execute();
  }
  return { policy: options.policy, version, updated_by: options.principal, updated_at: tx.now };
}

/** Names one version of one parked row. */
export interface RowVersionKey {
  workspaceId: string;
  runId: string;
  taskKey: string;
  rowVersion: string;
}

/** Records a member's approval of a row version; a second one by the same member changes nothing. */
export async function recordApproval(
  tx: Tx,
  key: RowVersionKey & { principal: string },
): Promise<void> {
  const { db, dialect } = tx[SQL];
  await runPrepared(
    db,
    dialect,
    'task_approvals.insert',
    (p) =>
      db
        .insertInto('task_approvals')
        .values({
          workspace_id: p('workspace_id'),
          run_id: p('run_id'),
          task_key: p('task_key'),
          row_version: p('row_version'),
          principal: p('principal'),
          created_at: p('created_at'),
        })
        .onConflict((conflict) =>
          conflict.columns(['run_id', 'task_key', 'row_version', 'principal']).doNothing(),
        ),
    {
      workspace_id: key.workspaceId,
      run_id: key.runId,
      task_key: key.taskKey,
      row_version: key.rowVersion,
      principal: key.principal,
      created_at: tx.now,
    },
  );
}

/**
 * Carries a row's approvals from one version to the next, when what changed is not what the
 * members approved (the row was readdressed): they still count.
 */
export async function carryApprovals(
  tx: Tx,
  key: Omit<RowVersionKey, 'rowVersion'> & { from: string; to: string },
): Promise<void> {
  await tx[SQL].db
    .updateTable('task_approvals')
    .set({ row_version: key.to })
    .where('run_id', '=', key.runId)
    .where('task_key', '=', key.taskKey)
    .where('row_version', '=', key.from)
    .execute();
}

/** The approvals of one row version, oldest first. */
export async function listApprovals(reader: Reader, key: RowVersionKey): Promise<ApprovalRecord[]> {
  const { db, dialect } = reader[SQL];
  const query = approvalsOfVersionQuery(reader, key);
  const { rows } = await runPrepared(db, dialect, query.key, query.build, query.values);
  return rows as ApprovalRecord[];
}

function approvalsOfVersionQuery(reader: Reader, key: RowVersionKey): PreparedQuery {
  const { db } = reader[SQL];
  return {
    key: 'task_approvals.of_version',
    build: (p) =>
      db
        .selectFrom('task_approvals')
        .select(['principal', 'created_at'])
        .where('run_id', '=', p('run_id'))
        .where('task_key', '=', p('task_key'))
        .where('row_version', '=', p('row_version'))
        .orderBy('created_at')
        .orderBy('principal'),
    values: { run_id: key.runId, task_key: key.taskKey, row_version: key.rowVersion },
  };
}

/**
 * On PostgreSQL, sends {@link listApprovals} with the unit's next statement
 * (see `readAhead`); undefined on SQLite.
 */
export function listApprovalsAhead(
  reader: Reader,
  key: RowVersionKey,
): Promise<ApprovalRecord[]> | undefined {
  const { db, dialect } = reader[SQL];
  return readAhead<ApprovalRecord>(db, dialect, approvalsOfVersionQuery(reader, key));
}

/**
 * On PostgreSQL, sends the read of a workspace's approval policy with the
 * unit's next statement (see `readAhead`), as the one that
 * {@link readApprovalPolicyOnce} answers for the rest of the unit. Nothing
 * happens on SQLite, or when this unit read the policy already.
 */
export function readApprovalPolicyAhead(tx: Tx, workspaceId: string): void {
  let read = policyOfUnit.get(tx);
  if (read?.has(workspaceId)) return;
  const { db, dialect } = tx[SQL];
  const rows = readAhead<ApprovalPolicyTable>(db, dialect, {
    key: POLICY_READ,
    build: readPolicy(db),
    values: { workspace_id: workspaceId },
  });
  if (!rows) return;
  const record = rows.then((found) => recordOf(found[0]));
  // A unit that fails before it reads the policy leaves it unread: not an unhandled rejection.
  record.catch(() => {});
  if (!read) {
    read = new Map();
    policyOfUnit.set(tx, read);
  }
  read.set(workspaceId, record);
}

/** A row version's approval, with the row version it belongs to. */
export type RowVersionApproval = ApprovalRecord & {
  run_id: string;
  task_key: string;
  row_version: string;
};

/** How many row versions one read names: a page of 1,000 parked rows is read in 10. */
const VERSIONS_PER_READ = 100;

/**
 * The approvals of the given row versions of a workspace, each row's oldest first: what the
 * views that show progress read. Only those versions are read (by the table's key), so a long
 * run's thousands of approved rows cost a parked row of it nothing.
 */
export async function listApprovalsOfVersions(
  reader: Reader,
  workspaceId: string,
  versions: readonly Omit<RowVersionKey, 'workspaceId'>[],
): Promise<RowVersionApproval[]> {
  const found: RowVersionApproval[] = [];
  for (let at = 0; at < versions.length; at += VERSIONS_PER_READ) {
    const chunk = versions.slice(at, at + VERSIONS_PER_READ);
    const rows = await reader[SQL].db
      .selectFrom('task_approvals')
      .select(['run_id', 'task_key', 'row_version', 'principal', 'created_at'])
      .where('workspace_id', '=', workspaceId)
      .where((eb) =>
        eb.or(
          chunk.map((version) =>
            eb.and([
              eb('run_id', '=', version.runId),
              eb('task_key', '=', version.taskKey),
              eb('row_version', '=', version.rowVersion),
            ]),
          ),
        ),
      )
      .orderBy('created_at')
      .orderBy('principal')
      .execute();
    found.push(...rows);
  }
  return found;
}

/** Where a page of parked rows ended: the next page starts after this row. */
export interface ParkedRowCursor {
  created_at: number;
  run_id: string;
  key: string;
}

/**
 * The parked rows of a workspace that hold at least one approval (of any of their versions),
 * oldest first, at most `limit` of them after `after` (from the first when null): the rows a
 * lowered quorum may already be met for. Read from the workspace's waiting rows
 * (tasks_waiting_by_workspace), so its cost follows the parks, and a page costs the same
 * however many pages came before it.
 */
export async function listParkedWithApprovals(
  reader: Reader,
  workspaceId: string,
  page: { limit: number; after: ParkedRowCursor | null },
): Promise<TaskTable[]> {
  const { db } = reader[SQL];
  const { after } = page;
  let query = db
    .selectFrom('tasks')
    .selectAll('tasks')
    .where('tasks.workspace_id', '=', workspaceId)
    .where('tasks.state', '=', stateLiteral('needs_approval'));
  if (after !== null) {
    query = query.where((eb) =>
      eb.or([
        eb('tasks.created_at', '>', after.created_at),
        eb.and([
          eb('tasks.created_at', '=', after.created_at),
          eb('tasks.run_id', '>', after.run_id),
        ]),
        eb.and([
          eb('tasks.created_at', '=', after.created_at),
          eb('tasks.run_id', '=', after.run_id),
          eb('tasks.key', '>', after.key),
        ]),
      ]),
    );
  }
  return query
    .where(holdsAnApproval)
    .orderBy('tasks.created_at')
    .orderBy('tasks.run_id')
    .orderBy('tasks.key')
    .limit(page.limit)
    .execute();
}

/** A `tasks` row some member approved (any of its versions). */
function holdsAnApproval(eb: ExpressionBuilder<Database, 'tasks'>) {
  return eb.exists(
    eb
      .selectFrom('task_approvals')
      .select('task_approvals.principal')
      .whereRef('task_approvals.run_id', '=', 'tasks.run_id')
      .whereRef('task_approvals.task_key', '=', 'tasks.key'),
  );
}

/**
 * Every workspace with a parked row holding an approval (of any of its versions): where a
 * policy change may have left a met call waiting. Read from the parked rows alone (the park
 * clock's index), so its cost follows how many calls wait, not how many workspaces there are.
 */
export async function workspacesWithApprovedParks(reader: Reader): Promise<string[]> {
  const rows = await reader[SQL].db
    .selectFrom('tasks')
    .select('tasks.workspace_id')
    .distinct()
    .where('tasks.state', '=', stateLiteral('needs_approval'))
    .where(holdsAnApproval)
    .orderBy('tasks.workspace_id')
    .execute();
  return rows.map((row) => row.workspace_id);
}
