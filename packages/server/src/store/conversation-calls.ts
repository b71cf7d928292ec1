import type { Reader } from './reader.js';
import type { TaskTable } from './schema.js';
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

/**
 * The model tool rows of a conversation's turns (all its runs) that carry
 * no call id, of tool `toolName`, and still await their agent's report:
 * claimed, or failed with one of `lateCodes` (closed unreported by the
 * kernel's guess). Oldest first, at most 200: where a report with no call
 * id (Gemini CLI) may belong.
 */
export async function listIdlessAwaitingRows(
  reader: Reader,
  call: {
    workspaceId: string;
    conversationId: string;
    toolName: string;
    lateCodes: readonly string[];
  },
): Promise<TaskTable[]> {
  return reader[SQL].db
    .selectFrom('tasks')
    .innerJoin('runs', 'runs.id', 'tasks.run_id')
    .selectAll('tasks')
    .where('runs.workspace_id', '=', call.workspaceId)
    .where('runs.conversation_id', '=', call.conversationId)
    .where('tasks.tool_call_id', 'is', null)
    .where('tasks.origin', '=', 'model')
    .where('tasks.kind', '=', 'tool')
    .where('tasks.tool_name', '=', call.toolName)
    .where((eb) =>
      eb.or([
        eb('tasks.state', '=', 'claimed'),
        eb.and([
          eb('tasks.state', '=', 'failed'),
          eb('tasks.error_code', 'in', [...call.lateCodes]),
        ]),
      ]),
    )
    .orderBy('tasks.created_at')
    .limit(200)
    .execute();
}
