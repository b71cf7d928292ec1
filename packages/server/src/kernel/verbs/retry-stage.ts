import type { Decision } from '@airlock/core';
import { AirlockError } from '../../errors.js';
import { effectProfileColumn } from '../../store/effect-profile-column.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import type { KernelContext } from '../context.js';
import type { TaskChange } from '../machines/move-task.js';
import { evaluateEditedCall } from '../stage/approval-stage.js';

/** Where a refused row's retry goes once the approval stage decided it again, and what that sets. */
export interface StagedAgain {
  state: 'runnable' | 'needs_approval';
  set: TaskChange;
}

/**
 * The stage's new decision of a row, keeping the mark of a person's edit
 * (`edited_by`, approvals.ts): the row still holds the edited input, so
 * what the model reads of it, and the input a hooked agent is handed, must
 * still say a person changed it.
 */
export function keepEditMark(
  row: Pick<TaskTable, 'decision'>,
  decision: Decision,
): Decision & { edited_by?: string } {
  if (row.decision === null) return decision;
  const { edited_by } = JSON.parse(row.decision) as { edited_by?: unknown };
  return typeof edited_by === 'string' ? { ...decision, edited_by } : decision;
}

/**
 * Sends a row the approval stage (or a person) refused through the stage
 * again, as it stands now, for a person's retry: a deny binds every origin,
 * so a retry is never a way past it. Granted, the row runs; asked, it parks
 * afresh for the approvers (a person's deny is not overturned by the retrier
 * alone, nor an author row the approval policy asks more of than the
 * retrier); refused again, the retry is refused and the hold stays. Nothing is
 * written here.
 * @throws AirlockError retry_refused (409) when the stage refuses the row again.
 */
export async function stageAgain(
  ctx: KernelContext,
  tx: Tx,
  run: RunTable,
  row: TaskTable,
  retrier: string,
): Promise<StagedAgain> {
  const { decision, effectProfile } = await evaluateEditedCall(ctx, tx, {
    run,
    row,
    toolInput: JSON.parse(row.tool_input) as unknown,
    decider: retrier,
  });
  const decided = {
    decision: JSON.stringify(keepEditMark(row, decision)),
    resolved_tool_name: decision.tool_name,
  };
  if (decision.outcome === 'denied') {
    const why = decision.error?.detail ?? 'denied';
    throw new AirlockError(
      'retry_refused',
      `task ${row.key}: the approval stage refuses it again (${why}); the hold stays until the rules allow it, or abandon or stop the run`,
    );
  }
  if (decision.outcome === 'parked') {
    return {
      state: 'needs_approval',
      set: {
        ...decided,
        addressee: run.agent_application_id,
        effect_profile: effectProfileColumn(effectProfile),
      },
    };
  }
  return { state: 'runnable', set: decided };
}
