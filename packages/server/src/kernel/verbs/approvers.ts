/*
 * Who may approve a row under the approval policy, which approvals still stand, and whether the
 * members left can meet a quorum at all.
 */
import {
  type ApprovalPolicy,
  type ApprovalProgress,
  type ApprovalRequirement,
  credentialIdOf,
} from '@airlock/core';
import { AirlockError } from '../../errors.js';
import type { ApprovalRecord } from '../../store/approvals.js';
import type { RunTable, TaskTable } from '../../store/schema.js';

/**
 * Who asked for a row: the run's starter, for a row a member appended
 * through the tasks door that member, and for a call a member edited (approve
 * with changes) that editor, whose input it now runs. Under `no_self_approval`
 * none of them may approve it.
 */
export interface RequestFacts {
  created_by: string | null;
  appended_by?: string | null | undefined;
  edited_by?: string | null | undefined;
}

/** The request facts of one row of a run, its editor read from the edit mark on its decision. */
export function requestOf(
  run: Pick<RunTable, 'created_by'>,
  row: Pick<TaskTable, 'appended_by' | 'decision'>,
): RequestFacts {
  return { created_by: run.created_by, appended_by: row.appended_by, edited_by: editorOf(row) };
}

/** The member whose edit wrote the row's current input (the mark approvals.ts leaves); else null. */
function editorOf(row: Pick<TaskTable, 'decision'>): string | null {
  if (row.decision === null) return null;
  const { edited_by: editor } = JSON.parse(row.decision) as { edited_by?: unknown };
  return typeof editor === 'string' ? editor : null;
}

/**
 * Refuses a member the policy does not let decide this row; on approve, also
 * the member who started the run, appended the row or edited its input when the
 * policy forbids self-approval. A deny, and an edit (which approves no version it replaces), is
 * open to every allowed approver, those included.
 * @throws AirlockError approver_not_allowed, self_approval_refused (403).
 */
export function checkDecider(
  requirement: ApprovalRequirement,
  options: { who: string; verb: 'approve' | 'deny' | 'edit'; run: RequestFacts; taskKey: string },
): void {
  const { who, verb } = options;
  if (!isNamedApprover(requirement, who)) {
    throw new AirlockError(
      'approver_not_allowed',
      `${who} may not ${verb} task ${options.taskKey}: approval policy rule ${requirement.rule_index} names who may decide it`,
    );
  }
  if (verb === 'approve' && isBarredRequester(requirement, options.run, who)) {
    throw new AirlockError(
      'self_approval_refused',
      options.run.created_by === who
        ? `${who} started this run; the approval policy lets nobody approve a call of a run they started`
        : options.run.appended_by === who
          ? `${who} appended task ${options.taskKey}; the approval policy lets nobody approve a call they appended`
          : `${who} edited task ${options.taskKey}; the approval policy lets nobody approve a call they edited, so another member approves it`,
    );
  }
}

/**
 * Whether this principal's approval of a row counts under the requirement: the covering rule
 * lets them decide, and they did not ask for the row (start its run, append it) under a policy
 * that forbids self-approval.
 */
export function mayApprove(
  requirement: ApprovalRequirement,
  run: RequestFacts,
  principal: string,
): boolean {
  return isNamedApprover(requirement, principal) && !isBarredRequester(requirement, run, principal);
}

/** Whether the covering rule lets this principal decide (every member, when it names nobody). */
function isNamedApprover(requirement: ApprovalRequirement, principal: string): boolean {
  return requirement.approvers === null || requirement.approvers.includes(principal);
}

/** Whether this principal asked for the row under a policy that forbids self-approval. */
function isBarredRequester(
  requirement: ApprovalRequirement,
  run: RequestFacts,
  principal: string,
): boolean {
  return (
    requirement.no_self_approval &&
    (run.created_by === principal || run.appended_by === principal || run.edited_by === principal)
  );
}

/**
 * The approvals of a row that still count: the policy is read when a person decides, so an
 * approval given earlier counts only while its member may still approve the row (still a named
 * approver, not the run's starter, the row's appender or its input's editor under no_self_approval)
 * and its credential is not revoked.
 */
export function standingApprovals<T extends { principal: string }>(
  requirement: ApprovalRequirement,
  run: RequestFacts,
  approvals: readonly T[],
  revoked: ReadonlySet<string>,
): T[] {
  return approvals.filter(
    (approval) =>
      !revoked.has(approval.principal) && mayApprove(requirement, run, approval.principal),
  );
}

/**
 * Refuses a decision by a credential revoked while its request was on its way (after the
 * request was authenticated): its approval would never stand (standingApprovals), and an
 * edit or a remembered rule of it would outlive the revocation.
 * @throws AirlockError approver_not_allowed (403).
 */
export function checkNotRevoked(revoked: ReadonlySet<string>, who: string): void {
  if (!revoked.has(who)) return;
  throw new AirlockError(
    'approver_not_allowed',
    `${who} was revoked while this decision was on its way; nothing changed`,
  );
}

/**
 * The progress a view shows: the requirement, the approvals given with names, and whether the
 * members who may still approve (see {@link quorumReachable}) are enough to meet it.
 */
export function progressOf(
  requirement: ApprovalRequirement,
  approvals: readonly ApprovalRecord[],
  seen: { names: ReadonlyMap<string, string>; reachable: boolean },
): ApprovalProgress {
  const { names } = seen;
  return {
    required: requirement.required,
    received: approvals.map((approval) => ({
      principal: approval.principal,
      name: names.get(approval.principal) ?? null,
      at: approval.created_at,
    })),
    rule_index: requirement.rule_index,
    approvers: requirement.approvers === null ? null : [...requirement.approvers],
    no_self_approval: requirement.no_self_approval,
    reachable: seen.reachable,
  };
}

/**
 * Whether the members who may approve a row under the requirement (its named approvers, or
 * every member, that are live and not barred as its requester) are at least as many as it asks:
 * when they are not, the row waits for its deadline unless the approval policy changes.
 */
export function quorumReachable(
  requirement: ApprovalRequirement,
  run: RequestFacts,
  liveMembers: ReadonlySet<string>,
): boolean {
  const candidates = requirement.approvers ?? [...liveMembers];
  const able = new Set(
    candidates.filter((member) => liveMembers.has(member) && mayApprove(requirement, run, member)),
  );
  return able.size >= requirement.required;
}

/** The approvals part of an event that leaves a row waiting (a park, a retry, an edit). */
export interface WaitingApprovals {
  approvals_required: number;
  /**
   * Absent when no policy rule covers the row and no_self_approval is off: any one live member
   * may approve it, and there is always one.
   */
  approvals_reachable?: boolean;
}

/**
 * Whether a row's reachability can be false, so its waiting events say it: a policy rule covers
 * it, or no_self_approval may bar its requester from the one approval any member may give.
 */
export function reachabilityMatters(requirement: ApprovalRequirement): boolean {
  return requirement.rule_index !== null || requirement.no_self_approval;
}

/**
 * What an event that leaves a row waiting says of its approvals, as the row's view says them:
 * how many the requirement asks, and, where it can be false (reachabilityMatters), whether the
 * live members may give them (quorumReachable).
 */
export function waitingApprovals(
  requirement: ApprovalRequirement,
  run: RequestFacts,
  liveMembers: ReadonlySet<string>,
): WaitingApprovals {
  if (!reachabilityMatters(requirement)) return { approvals_required: requirement.required };
  return {
    approvals_required: requirement.required,
    approvals_reachable: quorumReachable(requirement, run, liveMembers),
  };
}

/** An approval policy rule that asks more approvals than its live approvers can give. */
export interface UnreachableRule {
  rule_index: number;
  required: number;
  /** How many live members the rule lets approve (every live member, when it names nobody). */
  approvers_left: number;
}

/**
 * Every rule of the policy whose quorum the live members cannot meet: it names fewer live
 * members than it requires (a named approver was revoked), or it names nobody and the workspace
 * has fewer live members than it requires.
 */
export function unreachableRules(
  policy: ApprovalPolicy | null,
  liveMembers: ReadonlySet<string>,
): UnreachableRule[] {
  const unreachable: UnreachableRule[] = [];
  for (const [index, rule] of (policy?.rules ?? []).entries()) {
    const required = rule.required ?? 1;
    const named = rule.approvers ? namedMembers(policy?.groups ?? {}, rule.approvers) : null;
    const left = named === null ? liveMembers.size : named.filter((m) => liveMembers.has(m)).length;
    if (left < required) unreachable.push({ rule_index: index, required, approvers_left: left });
  }
  return unreachable;
}

/** The distinct members (`member:cred_x`) a rule's approvers name, each group expanded. */
function namedMembers(
  groups: Readonly<Record<string, readonly string[]>>,
  entries: readonly string[],
): string[] {
  const members = new Set<string>();
  for (const entry of entries) {
    const group = entry.startsWith('group:') ? entry.slice('group:'.length) : null;
    const listed = group === null ? [entry] : Object.hasOwn(groups, group) ? groups[group]! : [];
    for (const member of listed) {
      const id = credentialIdOf(member);
      if (id !== null) members.add(`member:${id}`);
    }
  }
  return [...members];
}
