import {
  ACTION_TAGS,
  type ActionTag,
  type ApprovalPolicy,
  type ApprovalRequirement,
  approvalRequirement,
  matchGlob,
  resolveToolName,
  type TaskView,
} from '@airlock/core';
import {
  type ApprovalPolicyRecord,
  type ApprovalRecord,
  listApprovalsOfVersions,
  readApprovalPolicy,
  readApprovalPolicyOnce,
} from '../../store/approvals.js';
import { principalRoster } from '../../store/principal-roster.js';
import type { Reader } from '../../store/reader.js';
import { approvalFactsOfRuns } from '../../store/runs.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import { taskVersion, taskView } from '../views.js';
import {
  checkDecider,
  checkNotRevoked,
  mayApprove,
  progressOf,
  quorumReachable,
  type RequestFacts,
  requestOf,
  standingApprovals,
} from './approvers.js';

// Who may approve lives in approvers.ts; these names stay importable from here.
export {
  checkDecider,
  checkNotRevoked,
  mayApprove,
  progressOf,
  type RequestFacts,
  requestOf,
  standingApprovals,
};

/** What the approval policy reads of a run. */
export type RunFacts = Pick<RunTable, 'agent_application_id' | 'created_by' | 'policy_layers'>;

/** The workspace's approval policy (validated when it was written); null when none was set. */
export async function policyOfWorkspace(
  reader: Reader,
  workspaceId: string,
): Promise<ApprovalPolicy | null> {
  return policyOfRecord(await readApprovalPolicy(reader, workspaceId));
}

function policyOfRecord(record: ApprovalPolicyRecord): ApprovalPolicy | null {
  return record.version === 0 ? null : (record.policy as ApprovalPolicy);
}

function ruleSetOf(run: RunFacts): string | null {
  if (run.policy_layers === null) return null;
  const frozen = JSON.parse(run.policy_layers) as { permission_rule_set?: unknown };
  return typeof frozen.permission_rule_set === 'string' ? frozen.permission_rule_set : null;
}

/** The parts of a call's effect profile a policy rule's `actions` reads. */
export interface PolicyActionFacts {
  action_tags?: readonly ActionTag[] | undefined;
  /** The declared tool's risk traits (absent for a tool the run's manifest does not declare). */
  risk_traits?: readonly string[] | undefined;
}

/**
 * The actions a policy rule's `actions` matches a call by: its action tags (what its shell
 * commands do), and each risk trait its tool declares that is an action tag's name too
 * (`read`, `write`, `delete`, `destructive`, `network`), so a tool declared `destructive` is
 * destructive to the policy whatever its input says.
 */
export function policyActionsOf(profile: PolicyActionFacts | null): ActionTag[] {
  const actions = new Set<ActionTag>(profile?.action_tags ?? []);
  for (const trait of profile?.risk_traits ?? []) {
    if ((ACTION_TAGS as readonly string[]).includes(trait)) actions.add(trait as ActionTag);
  }
  return [...actions];
}

/** What the policy asks of one parked row: who may decide it and how many must approve. */
export function requirementOf(
  policy: ApprovalPolicy | null,
  run: RunFacts,
  row: Pick<TaskTable, 'tool_name' | 'resolved_tool_name' | 'effect_profile'>,
): ApprovalRequirement {
  const profile = row.effect_profile ? (JSON.parse(row.effect_profile) as PolicyActionFacts) : null;
  return requirementOfCall(policy, run, {
    toolName: row.resolved_tool_name ?? row.tool_name,
    calledName: row.tool_name,
    actionTags: policyActionsOf(profile),
  });
}

/**
 * What the policy asks of a call by its action tags and its names. The first rule covering its
 * resolved tool name applies; for a call an alias renamed, so does the first rule covering the
 * name the model called with any runner qualification stripped (the name executors serve) when
 * that rule names the called name and not the resolved one, and the two compose strictly
 * (stricterRequirement). An alias the run's agent declares never moves a call out of a rule's
 * reach, nor under a more lenient rule the admin wrote for the alias target.
 */
export function requirementOfCall(
  policy: ApprovalPolicy | null,
  run: RunFacts,
  call: { toolName: string; calledName: string; actionTags: readonly ActionTag[] },
): ApprovalRequirement {
  const byName = (toolName: string) =>
    approvalRequirement(policy, {
      toolName,
      actionTags: call.actionTags,
      ruleSet: ruleSetOf(run),
      applicationId: run.agent_application_id,
    });
  const resolved = byName(call.toolName);
  const calledName = resolveToolName(call.calledName);
  if (calledName === call.toolName) return resolved;
  const called = byName(calledName);
  if (called.rule_index === null || called.rule_index === resolved.rule_index) return resolved;
  const tool = policy?.rules?.[called.rule_index]?.tool;
  const names = (name: string) => tool?.split('|').some((glob) => matchGlob(glob, name)) === true;
  // A rule that covers both names (or names no tool) already met the resolved name first.
  if (!names(calledName) || names(call.toolName)) return resolved;
  return stricterRequirement(resolved, called);
}

/**
 * Two rules' requirements of one call, composed: the larger quorum, decided only by members
 * both rules let decide (either rule naming nobody leaves the other's list), under the rule
 * asking more (the called name's on a tie). Where the two lists share nobody, nobody may
 * decide the call and its park runs out: the admin's policy contradicts itself for it.
 */
function stricterRequirement(
  resolved: ApprovalRequirement,
  called: ApprovalRequirement,
): ApprovalRequirement {
  if (resolved.rule_index === null) return called;
  const approvers =
    resolved.approvers === null
      ? called.approvers
      : called.approvers === null
        ? resolved.approvers
        : resolved.approvers.filter((principal) => called.approvers?.includes(principal));
  return {
    rule_index: resolved.required > called.required ? resolved.rule_index : called.rule_index,
    required: Math.max(resolved.required, called.required),
    approvers,
    no_self_approval: resolved.no_self_approval || called.no_self_approval,
  };
}

/**
 * The workspace's approval policy as this unit of work first read it: one keyed read
 * however many rows ask (null when none was set).
 */
export async function policyOfUnit(tx: Tx, workspaceId: string): Promise<ApprovalPolicy | null> {
  return policyOfRecord(await readApprovalPolicyOnce(tx, workspaceId));
}

/**
 * Views of rows as people read them: each decider named, and each parked
 * call with its approval progress under the workspace's current policy.
 */
export async function decisionViews(
  reader: Reader,
  workspaceId: string,
  rows: readonly TaskTable[],
): Promise<TaskView[]> {
  const parked = rows.filter((row) => row.state === 'needs_approval');
  const runIds = parked.map((row) => row.run_id);
  const versions = parked.map((row) => ({
    runId: row.run_id,
    taskKey: row.key,
    rowVersion: taskVersion(row),
  }));
  const [{ names, revoked, liveMembers }, policy, runs, approvals] = await Promise.all([
    principalRoster(reader, workspaceId),
    parked.length > 0 ? policyOfWorkspace(reader, workspaceId) : null,
    approvalFactsOfRuns(reader, runIds),
    listApprovalsOfVersions(reader, workspaceId, versions),
  ]);
  const runById = new Map(runs.map((run) => [run.id, run]));
  const givenTo = new Map<string, ApprovalRecord[]>();
  for (const approval of approvals) {
    const at = versionKey(approval.run_id, approval.task_key, approval.row_version);
    givenTo.set(at, [...(givenTo.get(at) ?? []), approval]);
  }
  return rows.map((row) => {
    const view: TaskView = {
      ...taskView(row),
      decided_by_name: row.decided_by ? (names.get(row.decided_by) ?? null) : null,
    };
    const run = runById.get(row.run_id);
    if (row.state !== 'needs_approval' || !run) return view;
    const given = givenTo.get(versionKey(row.run_id, row.key, taskVersion(row))) ?? [];
    const requirement = requirementOf(policy, run, row);
    const request = requestOf(run, row);
    const standing = standingApprovals(requirement, request, given, revoked);
    const reachable = quorumReachable(requirement, request, liveMembers);
    return { ...view, approvals: progressOf(requirement, standing, { names, reachable }) };
  });
}

/** One row version as a map key (NUL never occurs in ids, keys or versions). */
function versionKey(runId: string, taskKey: string, rowVersion: string): string {
  return `${runId}\u0000${taskKey}\u0000${rowVersion}`;
}
