import type { Reader } from './reader.js';
import { SQL } from './sql-handle.js';

/**
 * The run, other than `exceptRunId`, of a conversation's newest model row
 * of the agent's call id: where a hooked agent's report of a call belongs
 * when it arrives after the call's turn ended and the session's next turn
 * began. Undefined when no other run of the conversation has the call.
 */
export async function findOtherRunOfCall(
  reader: Reader,
  call: { workspaceId: string; conversationId: string; toolUseId: string; exceptRunId: string },
): Promise<string | undefined> {
  const row = await reader[SQL].db
    .selectFrom('tasks')
    .innerJoin('runs', 'runs.id', 'tasks.run_id')
    .select('tasks.run_id')
    .where('runs.workspace_id', '=', call.workspaceId)
    .where('runs.conversation_id', '=', call.conversationId)
    .where('runs.id', '!=', call.exceptRunId)
    .where('tasks.tool_call_id', '=', call.toolUseId)
    .where('tasks.origin', '=', 'model')
    .orderBy('tasks.created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.run_id;
}
