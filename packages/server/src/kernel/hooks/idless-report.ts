import { canonicalJson } from '@airlock/core';
import { listIdlessAwaitingRows } from '../../store/conversation-calls.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import type { KernelContext } from '../context.js';
import { LATE_REPORTABLE, OUTCOME_UNKNOWN } from '../machines/task-machine.js';
import type { RanCall } from './agent-calls.js';
import { canonicalOf } from './idless-rows.js';

/**
 * Where a report with no call id (Gemini CLI's AfterTool) belongs: only its
 * tool and input name its row, and an identical call of another turn of
 * the conversation is as good a match as one of the current turn. The
 * candidates are the rows granted and still claimed, beside those the
 * kernel closed `outcome_unknown` within the longest lease (the agent may
 * still be running their call: a member stopped its turn, or its lease
 * lapsed); with none claimed, every row closed unreported (also `not_run`,
 * and earlier). The report goes to the oldest candidate when they all
 * belong to one turn (identical calls of one turn are the same call made
 * twice); when they span turns nothing tells which ran, so it goes to none
 * of them and is recorded as an unstaged call of the current turn.
 * Within the one turn, a claimed row goes before one closed unreported.
 */
export type IdlessPlace =
  | { kind: 'here'; row: TaskTable }
  | { kind: 'elsewhere'; runId: string; key: string }
  | { kind: 'ambiguous'; detail: string };

/**
 * The place of a report with no call id (see {@link IdlessPlace}); null when
 * no row awaits it, or the run has no conversation (a hooked turn always has one).
 */
export async function placeIdlessReport(
  ctx: KernelContext,
  tx: Tx,
  options: { run: RunTable; ran: RanCall },
): Promise<IdlessPlace | null> {
  const { run, ran } = options;
  if (run.conversation_id === null) return null;
  const input = canonicalJson(ran.toolInput ?? null);
  const rows = (
    await listIdlessAwaitingRows(tx, {
      workspaceId: run.workspace_id,
      conversationId: run.conversation_id,
      toolName: ran.toolName,
      lateCodes: LATE_REPORTABLE,
    })
  ).filter((row) => canonicalOf(row.tool_input) === input);
  const since = tx.now - ctx.maxLeaseMs;
  const live = rows.filter(
    (row) =>
      row.state === 'claimed' || (row.error_code === OUTCOME_UNKNOWN && row.updated_at >= since),
  );
  const candidates = live.some((row) => row.state === 'claimed') ? live : rows;
  // Within one turn a claimed row, still waiting, takes the report before one closed unreported.
  const row = candidates.find((candidate) => candidate.state === 'claimed') ?? candidates[0];
  if (row === undefined) return null;
  const turns = new Set(candidates.map((candidate) => candidate.run_id)).size;
  if (turns > 1) {
    return {
      kind: 'ambiguous',
      detail: `this report carries no call id and matches identical ${ran.toolName} calls of more than one turn (${turns})`,
    };
  }
  return row.run_id === run.id
    ? { kind: 'here', row }
    : { kind: 'elsewhere', runId: row.run_id, key: row.key };
}
