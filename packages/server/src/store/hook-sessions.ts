import { runPrepared } from './prepared.js';
import type { Reader } from './reader.js';
import type { HookSessionTable } from './schema.js';
import { SQL } from './sql-handle.js';
import type { Store, Tx } from './store.js';

/** The key of a hooked session: the agent's session id within an application. */
export interface HookSessionKey {
  workspaceId: string;
  agentApplicationId: string;
  agent: string;
  sessionId: string;
}

/** Reads a hooked session, or null before its first event. */
export async function readHookSession(
  reader: Reader,
  key: HookSessionKey,
): Promise<HookSessionTable | null> {
  // A prepared statement: every event of a hooked session reads its session first.
  const { db, dialect } = reader[SQL];
  const { rows } = await runPrepared(
    db,
    dialect,
    'hook_sessions.read',
    (p) =>
      db
        .selectFrom('hook_sessions')
        .selectAll()
        .where('agent_application_id', '=', p('agent_application_id'))
        .where('agent', '=', p('agent'))
        .where('session_id', '=', p('session_id')),
    {
      agent_application_id: key.agentApplicationId,
      agent: key.agent,
      session_id: key.sessionId,
    },
  );
  return (rows[0] as HookSessionTable | undefined) ?? null;
}

/**
 * Opens a hooked session: its conversation and its row, in one transaction.
 * Two first events racing make one session: the loser takes back the
 * conversation it planted (no empty conversation is left behind) and reads
 * the winner's.
 */
export async function openHookSession(
  store: Store,
  key: HookSessionKey,
  conversationId: string,
): Promise<HookSessionTable> {
  const now = store.now();
  await store.transaction(async (tx) => {
    await tx[SQL].db
      .insertInto('conversations')
      .values({
        id: conversationId,
        workspace_id: key.workspaceId,
        agent_application_id: key.agentApplicationId,
        created_at: now,
      })
      .execute();
    const opened = await tx[SQL].db
      .insertInto('hook_sessions')
      .values({
        agent_application_id: key.agentApplicationId,
        agent: key.agent,
        session_id: key.sessionId,
        workspace_id: key.workspaceId,
        conversation_id: conversationId,
        run_id: null,
        created_at: now,
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    if (Number(opened.numInsertedOrUpdatedRows ?? 0) === 0) {
      await tx[SQL].db.deleteFrom('conversations').where('id', '=', conversationId).execute();
    }
  });
  const row = await readHookSession(store, key);
  if (!row) throw new Error('a hooked session vanished right after it was opened');
  return row;
}

/** Points a hooked session at the run of its current turn. */
export async function setHookSessionRun(tx: Tx, key: HookSessionKey, runId: string): Promise<void> {
  await tx[SQL].db
    .updateTable('hook_sessions')
    .set({ run_id: runId })
    .where('agent_application_id', '=', key.agentApplicationId)
    .where('agent', '=', key.agent)
    .where('session_id', '=', key.sessionId)
    .execute();
}
