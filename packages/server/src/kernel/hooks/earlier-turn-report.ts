import { findOtherRunOfCall } from '../../store/conversation-calls.js';
import type { HookSessionTable, RunTable } from '../../store/schema.js';
import type { KernelContext } from '../context.js';
import { lockRunIfAny } from '../machines/run-state.js';
import type { RanCall } from './agent-calls.js';
import { type PostToolOutcome, postToolRow } from './hooked-reports.js';

/**
 * A report (post_tool) of a call that no row of the session's current turn
 * holds, by the agent's id for it: the call may be one of an earlier turn of
 * the session's conversation that ended while the call ran (a member stopped
 * it, and the agent's next call opened a new turn). Its report is then
 * committed to its own row there, as {@link postToolRow} commits any report
 * (a row still claimed records what ran), instead of going on the new turn
 * as a call no hook asked about while the old row stays claimed. Null when
 * the call has no id, or no other turn of the conversation has a row of it.
 */
export async function reportToEarlierTurn(
  ctx: KernelContext,
  options: { session: HookSessionTable; current: RunTable; agent: string; ran: RanCall },
): Promise<{ run: RunTable; value: PostToolOutcome } | null> {
  const { current, ran } = options;
  if (ran.toolUseId === null) return null;
  const runId = await findOtherRunOfCall(ctx.store, {
    workspaceId: current.workspace_id,
    conversationId: options.session.conversation_id,
    toolUseId: ran.toolUseId,
    exceptRunId: current.id,
  });
  if (runId === undefined) return null;
  return ctx.store.transaction(async (tx) => {
    const run = await lockRunIfAny(tx, current.workspace_id, runId);
    if (!run) return null;
    const value = await postToolRow(ctx, tx, run, { agent: options.agent, ran });
    return value.row ? { run, value } : null;
  });
}
