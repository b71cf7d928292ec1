import { AirlockError } from '../../errors.js';
import { effectProfileColumn } from '../../store/effect-profile-column.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import type { KernelContext } from '../context.js';
import { evaluateEditedCall } from '../stage/approval-stage.js';
import { mayApprove, policyOfUnit, requestOf, requirementOf } from './approval-quorum.js';
import { keepEditMark, type StagedAgain } from './retry-stage.js';

/** A failed call that parks again instead of running: where it rests and what the policy asks. */
export interface ParkedAgain extends StagedAgain {
  state: 'needs_approval';
  approvalsRequired: number;
}

/**
 * Sends a failed tool call or hook a person retries through the approval stage
 * again, as it stands now, before it runs again: running it again is a new
 * decision to run it. A refusal (a guardrail or deny rule added while the
 * run held) refuses the retry and the hold stays. Where the stage would park
 * the call, or people approved it at a park before it ran, the retry runs it
 * at once only where the approval policy lets the retrier alone approve it
 * (one approval needed, the retrier among its approvers, not barred by
 * `no_self_approval`); otherwise the row parks again for the policy, its
 * approvals started afresh. An author row's grant by its origin is held to
 * the retrier in the appender's place, and so is a call or hook a member's
 * own standalone run granted (bindAuthorGrant). Answers the park, or null
 * when the retry runs the call (a summarizer row always does). Nothing is
 * written here.
 * @throws AirlockError retry_refused (409) when the stage refuses the call now.
 */
export async function rerunThroughStage(
  ctx: KernelContext,
  tx: Tx,
  options: { run: RunTable; row: TaskTable; retrier: string },
): Promise<ParkedAgain | null> {
  const { run, row, retrier } = options;
  if (row.kind !== 'tool' && row.kind !== 'hook') return null;
  const { decision, effectProfile } = await evaluateEditedCall(ctx, tx, {
    run,
    row,
    toolInput: JSON.parse(row.tool_input) as unknown,
    decider: retrier,
  });
  if (decision.outcome === 'denied') {
    const why = decision.error?.detail ?? 'denied';
    throw new AirlockError(
      'retry_refused',
      `task ${row.key}: the approval stage refuses it now (${why}); the hold stays until the rules allow it, or abandon or stop the run`,
    );
  }
  const parksNow = decision.outcome === 'parked';
  if (!parksNow && !wasParked(row)) return null;
  // A call the stage parks now is read as it would park: its effect profile carries the tags
  // the policy's rules match (a row granted before has none).
  const restaged = parksNow
    ? {
        decision: JSON.stringify(keepEditMark(row, decision)),
        resolved_tool_name: decision.tool_name,
        effect_profile: effectProfileColumn(effectProfile),
      }
    : {};
  const policy = await policyOfUnit(tx, run.workspace_id);
  const requirement = requirementOf(policy, run, { ...row, ...restaged });
  if (requirement.required === 1 && mayApprove(requirement, requestOf(run, row), retrier)) {
    return null;
  }
  return {
    state: 'needs_approval',
    approvalsRequired: requirement.required,
    set: {
      ...restaged,
      addressee: run.agent_application_id,
      claim_id: null,
      lease_until: null,
      result: null,
    },
  };
}

/** Whether the approval stage parked the row for people before it ran. */
function wasParked(row: Pick<TaskTable, 'decision'>): boolean {
  if (row.decision === null) return false;
  return (JSON.parse(row.decision) as { outcome?: unknown }).outcome === 'parked';
}
