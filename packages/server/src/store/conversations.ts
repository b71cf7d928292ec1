import { lockedForUpdate } from './dialect.js';
import type { ConversationTable } from './schema.js';
import { SQL } from './sql-handle.js';
import type { Store, Tx } from './store.js';

/** Stores a new conversation. */
export async function insertConversation(
  store: Store,
  conversation: ConversationTable,
): Promise<void> {
  await store.db.insertInto('conversations').values(conversation).execute();
}

/** True when a workspace has a conversation by that id. */
export async function conversationExists(
  store: Store,
  workspaceId: string,
  id: string,
): Promise<boolean> {
  const row = await store.db
    .selectFrom('conversations')
    .select('id')
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return row !== undefined;
}

/** A conversation of one agent application in a workspace; undefined when it has none by that id. */
export async function findOwnConversation(
  store: Store,
  owner: { workspaceId: string; agentApplicationId: string; id: string },
): Promise<ConversationTable | undefined> {
  return store.db
    .selectFrom('conversations')
    .selectAll()
    .where('id', '=', owner.id)
    .where('workspace_id', '=', owner.workspaceId)
    .where('agent_application_id', '=', owner.agentApplicationId)
    .executeTakeFirst();
}

/**
 * A conversation of a workspace, read in the caller's unit of work and
 * locked until it commits where the backend needs it: a write that names the
 * conversation (a new run, an overlay) then commits before the pruner can
 * delete it, or finds it gone. Undefined when the workspace has none by that id.
 */
export async function lockConversation(
  tx: Tx,
  workspaceId: string,
  id: string,
): Promise<ConversationTable | undefined> {
  const { db, dialect } = tx[SQL];
  return db
    .selectFrom('conversations')
    .selectAll()
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .$call((qb) => lockedForUpdate(dialect, qb))
    .executeTakeFirst();
}
