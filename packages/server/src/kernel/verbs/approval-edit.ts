/*
 * Approve with changes: a person's edit of a parked call, evaluated again by every layer and
 * recorded with both inputs.
 */
import type { ApprovalPolicy, ApprovalRequirement } from '@airlock/core';
import { AirlockError } from '../../errors.js';
import { effectProfileColumn } from '../../store/effect-profile-column.js';
import type { PrincipalRoster } from '../../store/principal-roster.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import { rewriteParkedCall } from '../../store/tasks.js';
import type { KernelContext } from '../context.js';
import { evaluateEditedCall } from '../stage/approval-stage.js';
import { requirementOf } from './approval-quorum.js';
import { requestOf, waitingApprovals } from './approvers.js';

/**
 * Rewrites a parked call with a person's edit after the approval stage
 * evaluated it again, and records both versions on a `task.edited` event.
 * Returns the row as it now stands, what the policy asks of it (only the
 * editor's approval when the stage grants the edit outright) and whether it did.
 * An edit that still parks says, as a park does, how many approvals the edited
 * call needs and whether the live members (`roster`) can give them.
 * @throws AirlockError edit_refused (422) when the stage refuses the edit or the row is no tool call.
 */
export async function applyEdit(
  ctx: KernelContext,
  tx: Tx,
  options: {
    run: RunTable;
    row: TaskTable;
    toolInput: unknown;
    who: string;
    policy: ApprovalPolicy | null;
    roster: Promise<PrincipalRoster>;
  },
): Promise<{ row: TaskTable; requirement: ApprovalRequirement; granted: boolean }> {
  const { run, row, who } = options;
  if (row.kind !== 'tool') {
    throw new AirlockError(
      'edit_refused',
      `task ${row.key} is a ${row.kind} row: only a tool call's input can be edited`,
    );
  }
  if (isJsonObject(JSON.parse(row.tool_input)) && !isJsonObject(options.toolInput)) {
    // An executor's handler reads its arguments by name: null or a string would reach it as
    // the input of a call that had named ones.
    throw new AirlockError(
      'edit_refused',
      `an edited input must be a JSON object, as the call's own input is (got ${jsonKind(options.toolInput)})`,
    );
  }
  const { decision, effectProfile } = await evaluateEditedCall(ctx, tx, {
    run,
    row,
    toolInput: options.toolInput,
    decider: who,
  });
  if (decision.outcome === 'denied') {
    throw new AirlockError(
      'edit_refused',
      `the edited call is refused: ${decision.error?.detail ?? 'a policy layer denies it'}`,
    );
  }
  const edited: TaskTable = {
    ...row,
    tool_input: JSON.stringify(options.toolInput ?? null),
    resolved_tool_name: decision.tool_name,
    // The mark tells the model, when it reads the result, that what ran is not what it composed.
    decision: JSON.stringify({ ...decision, edited_by: who }),
    effect_profile: effectProfileColumn(effectProfile),
    // Past the row's last change even within one millisecond (or a clock stepped back): the
    // version hashes it, and two edits must never share a version an approval is bound to.
    updated_at: Math.max(tx.now, row.updated_at + 1),
  };
  if (!(await rewriteParkedCall(tx, edited))) {
    throw new AirlockError('task_not_waiting', `task ${row.key} is no longer waiting`);
  }
  // The edited call needs what it would need anyway; one the stage grants needs only this approval.
  const needed = requirementOf(options.policy, run, edited);
  const granted = decision.outcome === 'granted';
  const requirement = granted ? { ...needed, required: 1 } : needed;
  const { liveMembers } = await options.roster;
  tx.emit({
    workspace_id: run.workspace_id,
    run_id: run.id,
    task_key: row.key,
    type: 'task.edited',
    data: {
      state: row.state,
      decided_by: who,
      previous_input: JSON.parse(row.tool_input) as unknown,
      tool_input: options.toolInput ?? null,
      outcome: decision.outcome,
      ...(granted ? {} : waitingApprovals(requirement, requestOf(run, edited), liveMembers)),
    },
    principal: who,
  });
  return { row: edited, requirement, granted };
}

function isJsonObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function jsonKind(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}
