import type { RunState } from '@airlock/core';
import type { RunTable } from './schema.js';
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
    .limit(listing.limit)
    .execute();
}

/**
 * The agent application of a run of a workspace: its id, null for a run of no
 * application, undefined when the workspace has no such run.
 */
export async function applicationOfRun(
  store: Store,
  workspaceId: string,
  runId: string,
): Promise<string | null | undefined> {
  const run = await store.db
    .selectFrom('runs')
    .select('agent_application_id')
    .where('id', '=', runId)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return run?.agent_application_id;
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
