import type { RunState } from '@airlock/core';
import { sql } from 'kysely';
import { runPrepared } from './prepared.js';
import type { Reader } from './reader.js';
import { rowLimit } from './row-limit.js';
import type { RunTable } from './schema.js';
import { SQL } from './sql-handle.js';
import type { Store } from './store.js';

/**
 * The runs repository: reads of runs outside a unit of work. A run's state
 * moves only through the kernel's run machine.
 */

/** Where a page of runs starts: after this run, newest first by (created_at, id). */
export interface RunCursor {
  createdAt: number;
  id: string;
}

/** Which runs of a workspace to list, newest first. */
export interface RunListing {
  workspaceId: string;
  /** Only this agent application's runs (an agent credential's own); undefined for all. */
  agentApplicationId?: string | undefined;
  state?: RunState | undefined;
  limit: number;
  /** Only the runs after this one in the list's order. */
  after?: RunCursor | undefined;
}

/**
 * A workspace's runs, newest first, ties (runs created in the same
 * millisecond) by id, descending: an order in which every run has one
 * place, so a page after a cursor neither skips nor repeats a run.
 */
export async function listRuns(store: Store, listing: RunListing): Promise<RunTable[]> {
  const after = listing.after;
  return store.db
    .selectFrom('runs')
    .selectAll()
    .where('workspace_id', '=', listing.workspaceId)
    .$if(listing.agentApplicationId !== undefined, (qb) =>
      qb.where('agent_application_id', '=', listing.agentApplicationId!),
    )
    .$if(listing.state !== undefined, (qb) => qb.where('state', '=', listing.state!))
    .$if(after !== undefined, (qb) =>
      // The first bound alone is a range of index runs_by_workspace (workspace_id, created_at).
      qb
        .where('created_at', '<=', after!.createdAt)
        .where((eb) => eb.or([eb('created_at', '<', after!.createdAt), eb('id', '<', after!.id)])),
    )
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(rowLimit(listing.limit))
    .execute();
}

/** Past this many runs, the remembered owners start over rather than grow without end. */
const KNOWN_OWNERS_LIMIT = 100_000;

/** Whose a run is: its workspace and agent application, neither of which ever changes. */
interface RunOwner {
  workspaceId: string;
  application: string | null;
}

/** The owner of each run this process read, by store and run id. */
const knownOwners = new WeakMap<Store, Map<string, RunOwner>>();

function ownersOf(store: Store): Map<string, RunOwner> {
  let known = knownOwners.get(store);
  if (!known) {
    known = new Map();
    knownOwners.set(store, known);
  }
  return known;
}

function remember(known: Map<string, RunOwner>, runId: string, owner: RunOwner): void {
  if (known.size >= KNOWN_OWNERS_LIMIT) known.clear();
  known.set(runId, owner);
}

/**
 * The agent application of a run of a workspace: its id, null for a run of no
 * application, undefined when the workspace has no such run. A run never
 * changes workspace or application (nor do applications go away), so what
 * was read once is answered from memory after: every agent request that
 * names a run asks. A run not found is not remembered: it may be committed
 * in a moment.
 */
export async function applicationOfRun(
  store: Store,
  workspaceId: string,
  runId: string,
): Promise<string | null | undefined> {
  const known = ownersOf(store);
  let owner = known.get(runId);
  if (!owner) {
    const { db, dialect } = store[SQL];
    const { rows } = await runPrepared(
      db,
      dialect,
      'runs.owner_of',
      (p) =>
        db
          .selectFrom('runs')
          .select(['workspace_id', 'agent_application_id'])
          .where('id', '=', p('id')),
      { id: runId },
    );
    const row = rows[0];
    if (!row) return undefined;
    owner = { workspaceId: row.workspace_id, application: row.agent_application_id };
    remember(known, runId, owner);
  }
  return owner.workspaceId === workspaceId ? owner.application : undefined;
}

/**
 * The agent application of each of these runs that exists, by run id (from
 * the same memory as {@link applicationOfRun}: only runs not read before are
 * read).
 */
export async function applicationsOfRuns(
  store: Store,
  runIds: readonly string[],
): Promise<Map<string, string | null>> {
  const known = ownersOf(store);
  const answer = new Map<string, string | null>();
  const missing: string[] = [];
  for (const runId of new Set(runIds)) {
    const owner = known.get(runId);
    if (owner) answer.set(runId, owner.application);
    else missing.push(runId);
  }
  if (missing.length === 0) return answer;
  const rows = await store.db
    .selectFrom('runs')
    .select(['id', 'workspace_id', 'agent_application_id'])
    .where('id', 'in', missing)
    .execute();
  for (const row of rows) {
    answer.set(row.id, row.agent_application_id);
    remember(known, row.id, {
      workspaceId: row.workspace_id,
      application: row.agent_application_id,
    });
  }
  return answer;
}

/** What an approval policy reads of each of these runs: application, starter and frozen layers. */
export async function approvalFactsOfRuns(
  reader: Reader,
  runIds: readonly string[],
): Promise<Pick<RunTable, 'id' | 'agent_application_id' | 'created_by' | 'policy_layers'>[]> {
  if (runIds.length === 0) return [];
  return reader[SQL].db
    .selectFrom('runs')
    .select(['id', 'agent_application_id', 'created_by', 'policy_layers'])
    .where('id', 'in', [...new Set(runIds)])
    .execute();
}

/** The ids of an agent application's running runs. */
export async function runningRunIdsOf(
  reader: Reader,
  agentApplicationId: string,
): Promise<string[]> {
  const running = await reader[SQL].db
    .selectFrom('runs')
    .select('id')
    .where('agent_application_id', '=', agentApplicationId)
    .where('state', '=', 'running')
    .execute();
  return running.map((run) => run.id);
}

/** Up to `limit` running runs whose agent application was removed. */
export async function runningRunsOfRemovedApplications(
  store: Store,
  limit: number,
): Promise<{ id: string; workspace_id: string; agent_application_id: string | null }[]> {
  return store.db
    .selectFrom('runs')
    .innerJoin('agent_applications', 'agent_applications.id', 'runs.agent_application_id')
    .select(['runs.id', 'runs.workspace_id', 'runs.agent_application_id'])
    .where('runs.state', '=', 'running')
    .where('agent_applications.removed_at', 'is not', null)
    .limit(rowLimit(limit))
    .execute();
}

/** A run's frozen policy-layer configuration (JSON text), null when it froze none or has no such run. */
export async function policyLayersOfRun(reader: Reader, runId: string): Promise<string | null> {
  const run = await reader[SQL].db
    .selectFrom('runs')
    .select('policy_layers')
    .where('id', '=', runId)
    .executeTakeFirst();
  return run?.policy_layers ?? null;
}

/** One run by id, read outside any lock; undefined when there is none. */
export async function peekRun(reader: Reader, runId: string): Promise<RunTable | undefined> {
  // A prepared statement: every event of a hooked session and every drive of a run peeks first.
  const { db, dialect } = reader[SQL];
  const { rows } = await runPrepared(
    db,
    dialect,
    'runs.peek',
    (p) => db.selectFrom('runs').selectAll().where('id', '=', p('id')),
    { id: runId },
  );
  return rows[0] as RunTable | undefined;
}

/** Running runs whose next model step is due and whose model lease is free (at most `limit`). */
export async function runsDueForModel(
  store: Store,
  due: { now: number; limit: number },
): Promise<string[]> {
  const rows = await store.db
    .selectFrom('runs')
    .select('id')
    .where('phase', '=', sql.lit('model'))
    .where('state', '=', 'running')
    .where((eb) =>
      eb.or([eb('model_lease_until', 'is', null), eb('model_lease_until', '<', due.now)]),
    )
    .limit(rowLimit(due.limit))
    .execute();
  return rows.map((row) => row.id);
}
