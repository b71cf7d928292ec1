/*
 * What a park's event says of the approvals its call needs: how many, and whether the members
 * left can give them, as the row's view says it (so a reader need not read the row).
 */
import { principalRosterOnce } from '../../store/principal-roster.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import { policyOfUnit, requirementOf } from '../verbs/approval-quorum.js';
import {
  reachabilityMatters,
  requestOf,
  type WaitingApprovals,
  waitingApprovals,
} from '../verbs/approvers.js';

/** The approvals part of a `task.parked` (or parking `task.retried`) event's data. */
export type ParkApprovals = WaitingApprovals;

/**
 * How many approvals the workspace's approval policy asks of a row that parks now, and, when a
 * policy rule covers it or no_self_approval is on, whether the live members it lets approve can
 * give them (the reachability rule of the row's view, quorumReachable). One keyed read of the
 * policy, and of the roster when reachability matters, per unit of work (however many calls it
 * parks): a call no rule covers is not slowed by the roster read.
 */
export async function parkApprovals(
  tx: Tx,
  run: Pick<RunTable, 'agent_application_id' | 'created_by' | 'policy_layers'>,
  row: Pick<
    TaskTable,
    | 'workspace_id'
    | 'tool_name'
    | 'resolved_tool_name'
    | 'effect_profile'
    | 'appended_by'
    | 'decision'
  >,
): Promise<ParkApprovals> {
  const requirement = requirementOf(await policyOfUnit(tx, row.workspace_id), run, row);
  if (!reachabilityMatters(requirement)) return { approvals_required: requirement.required };
  const { liveMembers } = await principalRosterOnce(tx, row.workspace_id);
  return waitingApprovals(requirement, requestOf(run, row), liveMembers);
}
