import { findOtherRunOfCall } from '../../store/conversation-calls.js';
import { findModelRowByCallId } from '../../store/hooked-rows.js';
import type { HookSessionTable, RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import { findTask } from '../../store/tasks.js';
import type { KernelContext } from '../context.js';
import { lockRunIfAny } from '../machines/run-state.js';
import type { RanCall } from './agent-calls.js';
import { presentedMismatch } from './call-binding.js';
import { lapsedUnreported, type PostToolOutcome, postToolRow } from './hooked-reports.js';

/**
 * A report (post_tool) of a call that no row of the session's current turn
 * holds, by the agent's id for it: the call may be one of an earlier turn of
 * the session's conversation that ended while the call ran (a member stopped
 * it, and the agent's next call opened a new one). Its report is then
 * committed to its own row there, as {@link postToolRow} commits any report,
 * instead of going on the new turn as a call no hook asked about. Only a row
 * that still waits for this report takes it (see {@link awaitsReport}): a
 * client that uses a call id again in a later turn reports a call of that
 * turn, not the earlier one. A report with no call id goes to the row its
 * tool and input named (`elsewhere`), if that row still waits for it. Null
 * when no other turn of the conversation has a row waiting for it.
 */
export async function reportToEarlierTurn(
  ctx: KernelContext,
  options: {
    session: HookSessionTable;
    current: RunTable;
    agent: string;
    ran: RanCall;
    /** For a report with no call id: the row its tool and input name (see `placeIdlessReport`). */
    elsewhere?: { runId: string; key: string } | undefined;
  },
): Promise<{ run: RunTable; value: PostToolOutcome } | null> {
  const { current, ran, elsewhere } = options;
  const toolUseId = ran.toolUseId;
  if (toolUseId === null && elsewhere === undefined) return null;
  const runId =
    toolUseId === null
      ? elsewhere?.runId
      : await findOtherRunOfCall(ctx.store, {
          workspaceId: current.workspace_id,
          conversationId: options.session.conversation_id,
          toolUseId,
          exceptRunId: current.id,
        });
  if (runId === undefined) return null;
  return ctx.store.transaction(async (tx) => {
    const run = await lockRunIfAny(tx, current.workspace_id, runId);
    const taskKey = toolUseId === null ? elsewhere?.key : undefined;
    const row = !run
      ? undefined
      : toolUseId === null
        ? await findTask(tx, run.id, taskKey ?? '')
        : await findModelRowByCallId(tx, run.id, toolUseId);
    if (!run || !row || !(await awaitsReport(tx, run, row, ran))) return null;
    const value = await postToolRow(ctx, tx, run, { agent: options.agent, ran, taskKey });
    return value.row ? { run, value } : null;
  });
}

/**
 * True of a row of the reported call (same tool and input) that no report
 * closed yet: still claimed for the agent, or closed unreported by the
 * kernel's guess (see {@link lapsedUnreported}).
 */
async function awaitsReport(tx: Tx, run: RunTable, row: TaskTable, ran: RanCall): Promise<boolean> {
  if (row.kind !== 'tool' || (row.state !== 'claimed' && !lapsedUnreported(row))) return false;
  return (await presentedMismatch(tx, run, row, { call: ran, at: 'post_tool' })) === null;
}
