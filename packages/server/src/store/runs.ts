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

/** Which runs of a workspace to list, newest first. */
export interface RunListing {
  workspaceId: string;
  /** Only this agent application's runs (an agent credential's own); undefined for all. */
  agentApplicationId?: string | undefined;
  state?: RunState | undefined;
  limit: number;
}

/** A workspace's runs, newest first. */
export async function listRuns(store: Store, listing: RunListing): Promise<RunTable[]> {
  return store.db
    .selectFrom('runs')
    .selectAll()
    .where('workspace_id', '=', listing.workspaceId)
    .$if(listing.agentApplicationId !== undefined, (qb) =>
      qb.where('agent_application_id', '=', listing.agentApplicationId!),
    )
    .$if(listing.state !== undefined, (qb) => qb.where('state', '=', listing.state!))
    .orderBy('created_at', 'desc')
    .limit(rowLimit(listing.limit))
    .execute();
}

/** Past this many runs, the known applications start over rather than grow without end. */
const KNOWN_APPLICATIONS_LIMIT = 100_000;

/** The application of each run this process read, by store and `workspace/run`. */
const knownApplications = new WeakMap<Store, Map<string, string | null>>();

/**
 * The agent application of a run of a workspace: its id, null for a run of no
 * application, undefined when the workspace has no such run. A run never
 * changes application (nor do applications go away), so what was read once is
 * answered from memory after: every agent request that names a run asks.
 */
export async function applicationOfRun(
  store: Store,
  workspaceId: string,
  runId: string,
): Promise<string | null | undefined> {
  let known = knownApplications.get(store);
  if (!known) {
    known = new Map();
    knownApplications.set(store, known);
  }
  const key = `${workspaceId}/${runId}`;
  const remembered = known.get(key);
  if (remembered !== undefined) return remembered;
  const { db, dialect } = store[SQL];
  const { rows } = await runPrepared(
    db,
    dialect,
    'runs.application_of',
    (p) =>
      db
        .selectFrom('runs')
        .select('agent_application_id')
        .where('id', '=', p('id'))
        .where('workspace_id', '=', p('workspace_id')),
    { id: runId, workspace_id: workspaceId },
  );
  const application = rows[0]?.agent_application_id;
  // A run not found is not remembered: it may be committed in a moment.
  if (application !== undefined) {
    if (known.size >= KNOWN_APPLICATIONS_LIMIT) known.clear();
    known.set(key, application);
  }
  return application;
}

/** The agent application of each of these runs (a run never changes application). */
export async function applicationsOfRuns(
  store: Store,
  runIds: readonly string[],
): Promise<{ id: string; agent_application_id: string | null }[]> {
  return store.db
    .selectFrom('runs')
    .select(['id', 'agent_application_id'])
    .where('id', 'in', runIds)
    .execute();
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
