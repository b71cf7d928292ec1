import { AirlockError } from '../errors.js';
import { lockedForUpdate } from './dialect.js';
import { newId } from './ids.js';
import { rowLimit } from './row-limit.js';
import { SQL } from './sql-handle.js';
import type { Store, Tx } from './store.js';

/** Creates an agent application in a workspace. */
export async function createAgentApplication(
  store: Store,
  options: {
    workspaceId: string;
    name: string;
    /** Records the new application in its unit of work (the audit trail's line). */
    recordIn?: (tx: Tx, id: string) => void;
  },
): Promise<{ id: string }> {
  const id = newId('app');
  await store.transaction(async (tx) => {
    await tx[SQL].db
      .insertInto('agent_applications')
      .values({ id, workspace_id: options.workspaceId, name: options.name, created_at: tx.now })
      .execute();
    options.recordIn?.(tx, id);
  });
  return { id };
}

/** An agent application as the accounts routes show it. */
export interface ApplicationRecord {
  id: string;
  name: string;
  created_at: number;
  removed_at: number | null;
}

/** One agent application of a workspace (removed ones included); undefined when it has none by that id. */
export async function findAgentApplication(
  store: Store,
  workspaceId: string,
  id: string,
): Promise<ApplicationRecord | undefined> {
  return store.db
    .selectFrom('agent_applications')
    .select(['id', 'name', 'created_at', 'removed_at'])
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

/** Every agent application of a workspace, removed ones included, oldest first. */
export async function listApplicationRecords(
  store: Store,
  workspaceId: string,
): Promise<ApplicationRecord[]> {
  return store.db
    .selectFrom('agent_applications')
    .select(['id', 'name', 'created_at', 'removed_at'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .execute();
}

/** Lists a workspace's agent applications that are not removed (their credentials are fenced), oldest first. */
export async function listAgentApplications(
  store: Store,
  workspaceId: string,
): Promise<{ id: string; name: string }[]> {
  return store.db
    .selectFrom('agent_applications')
    .select(['id', 'name'])
    .where('workspace_id', '=', workspaceId)
    .where('removed_at', 'is', null)
    .orderBy('created_at')
    .execute();
}

/**
 * Locks a live (not removed) agent application of a workspace until the
 * unit commits, so no removal of it interleaves with the unit's writes.
 * @throws AirlockError agent_application_not_found when there is none by that id, or it is removed.
 */
export async function lockLiveApplication(
  tx: Tx,
  options: { workspaceId: string; agentApplicationId: string },
): Promise<void> {
  const { db, dialect } = tx[SQL];
  const app = await db
    .selectFrom('agent_applications')
    .select('removed_at')
    .where('id', '=', options.agentApplicationId)
    .where('workspace_id', '=', options.workspaceId)
    .$call((qb) => lockedForUpdate(dialect, qb))
    .executeTakeFirst();
  if (!app || app.removed_at !== null) {
    throw new AirlockError(
      'agent_application_not_found',
      `no agent application ${options.agentApplicationId} in this workspace`,
    );
  }
}

/**
 * Marks an agent application removed (once: a second removal keeps the first
 * time); returns when it was removed and whether this call removed it, or
 * undefined when the workspace has no such application. The application row
 * stays locked until the unit commits.
 */
export async function markApplicationRemoved(
  tx: Tx,
  options: { workspaceId: string; agentApplicationId: string },
): Promise<{ removedAt: number; newly: boolean } | undefined> {
  const { db, dialect } = tx[SQL];
  // Locked: a credential made for it meanwhile waits, then finds it removed (createCredential).
  const app = await db
    .selectFrom('agent_applications')
    .select(['id', 'removed_at'])
    .where('id', '=', options.agentApplicationId)
    .where('workspace_id', '=', options.workspaceId)
    .$call((qb) => lockedForUpdate(dialect, qb))
    .executeTakeFirst();
  if (!app) return undefined;
  if (app.removed_at !== null) return { removedAt: app.removed_at, newly: false };
  await db
    .updateTable('agent_applications')
    .set({ removed_at: tx.now })
    .where('id', '=', app.id)
    .execute();
  return { removedAt: tx.now, newly: true };
}

/** True when any agent application of any workspace was removed. */
export async function anyApplicationRemoved(store: Store): Promise<boolean> {
  const removed = await store.db
    .selectFrom('agent_applications')
    .select('id')
    .where('removed_at', 'is not', null)
    .limit(rowLimit(1))
    .executeTakeFirst();
  return removed !== undefined;
}
