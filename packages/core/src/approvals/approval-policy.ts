import { ACTION_TAGS, type ActionTag } from '../classify/tags.js';
import { compileGlob, matchGlob } from '../glob/byte-glob.js';
import { invalid, type Problem, pointerTo, type Validated, valid } from '../issues/problem.js';

/** The most distinct approvals one rule may require. */
export const MAX_REQUIRED_APPROVALS = 10;

/** One rule of an approval policy: which calls it covers, who may decide them, and how many must approve. */
export interface ApprovalPolicyRule {
  /** `|`-separated globs over the call's resolved tool name; omitted: every tool. */
  readonly tool?: string;
  /** The rule covers a call carrying any of these action tags; omitted: any call. */
  readonly actions?: readonly ActionTag[];
  /** The permission rule set the run froze (its id); omitted: any. */
  readonly rule_set?: string;
  /** The run's agent application id; omitted: any. */
  readonly application?: string;
  /** Member credential ids (`cred_…`) or `group:NAME`; omitted: every member of the workspace. */
  readonly approvers?: readonly string[];
  /** Distinct approvals the call needs before it runs (1 to {@link MAX_REQUIRED_APPROVALS}); default 1. */
  readonly required?: number;
}

/** A workspace's approval policy as declared. */
export interface ApprovalPolicy {
  /** Named groups of member credential ids. */
  readonly groups?: Readonly<Record<string, readonly string[]>>;
  /** Ordered rules: the first that covers a call applies. */
  readonly rules?: readonly ApprovalPolicyRule[];
  /** When true, nobody approves a call of a run they started. */
  readonly no_self_approval?: boolean;
}

/** The call an approval policy is asked about. */
export interface ApprovalSubject {
  /** The resolved tool name. */
  readonly toolName: string;
  readonly actionTags: readonly ActionTag[];
  readonly ruleSet: string | null;
  readonly applicationId: string | null;
}

/** What a policy asks of one call. */
export interface ApprovalRequirement {
  /** Index of the rule that applies; null when none does (the default: one approval by any member). */
  readonly rule_index: number | null;
  readonly required: number;
  /** Principals allowed to decide (`member:cred_…`), groups expanded; null: any member. */
  readonly approvers: readonly string[] | null;
  readonly no_self_approval: boolean;
}

const POLICY_KEYS = new Set(['groups', 'rules', 'no_self_approval']);
const RULE_KEYS = new Set(['tool', 'actions', 'rule_set', 'application', 'approvers', 'required']);
const CREDENTIAL_ID = /^cred_[A-Za-z0-9_-]{1,120}$/;
const GROUP_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `member:cred_x` or `cred_x` as the credential id; null when it names no credential. */
export function credentialIdOf(text: string): string | null {
  const id = text.startsWith('member:') ? text.slice('member:'.length) : text;
  return CREDENTIAL_ID.test(id) ? id : null;
}

function checkMembers(
  list: unknown,
  pointer: string,
  problems: Problem[],
  groups: ReadonlySet<string> | null,
): void {
  if (!Array.isArray(list) || list.length === 0 || list.length > 200) {
    problems.push({
      code: groups ? 'approval_rule_invalid' : 'approval_group_invalid',
      pointer,
      message: 'give a non-empty list of at most 200 member credential ids',
    });
    return;
  }
  list.forEach((entry, index) => {
    const at = pointerTo(pointer, index);
    if (typeof entry === 'string' && entry.startsWith('group:')) {
      if (groups?.has(entry.slice('group:'.length))) return;
      problems.push({
        code: 'approval_approver_unknown',
        pointer: at,
        message: groups
          ? `${entry} names no group of this policy's groups`
          : 'a group lists member credential ids, not other groups',
      });
    } else if (typeof entry !== 'string' || credentialIdOf(entry) === null) {
      problems.push({
        code: 'approval_approver_unknown',
        pointer: at,
        message: `${JSON.stringify(entry)} is neither a member credential id (cred_…) nor group:NAME`,
      });
    }
  });
}

function checkRule(
  rule: unknown,
  pointer: string,
  problems: Problem[],
  groups: ReadonlySet<string>,
): void {
  if (!isObject(rule)) {
    problems.push({ code: 'approval_rule_invalid', pointer, message: 'a rule is an object' });
    return;
  }
  for (const key of Object.keys(rule)) {
    if (!RULE_KEYS.has(key)) {
      problems.push({
        code: 'approval_policy_key_unknown',
        pointer: pointerTo(pointer, key),
        message: `unknown key "${key}"; a rule has ${[...RULE_KEYS].join(', ')}`,
      });
    }
  }
  if (rule.tool !== undefined) {
    const at = pointerTo(pointer, 'tool');
    if (typeof rule.tool !== 'string' || rule.tool.split('|').some((alt) => alt === '')) {
      problems.push({
        code: 'approval_rule_invalid',
        pointer: at,
        message: 'tool is |-separated globs with no empty alternative',
      });
    } else {
      for (const alt of rule.tool.split('|')) {
        const compiled = compileGlob(alt);
        if (!compiled.ok) problems.push(...compiled.problems.map((p) => ({ ...p, pointer: at })));
      }
    }
  }
  if (rule.actions !== undefined) {
    const at = pointerTo(pointer, 'actions');
    const ok =
      Array.isArray(rule.actions) &&
      rule.actions.length > 0 &&
      rule.actions.every((tag) => (ACTION_TAGS as readonly unknown[]).includes(tag));
    if (!ok) {
      problems.push({
        code: 'approval_rule_invalid',
        pointer: at,
        message: `actions is a non-empty list of action tags (${ACTION_TAGS.join(', ')})`,
      });
    }
  }
  for (const key of ['rule_set', 'application'] as const) {
    const value = rule[key];
    if (value !== undefined && (typeof value !== 'string' || value === '' || value.length > 200)) {
      problems.push({
        code: 'approval_rule_invalid',
        pointer: pointerTo(pointer, key),
        message: `${key} is a non-empty string of at most 200 characters`,
      });
    }
  }
  if (rule.approvers !== undefined) {
    checkMembers(rule.approvers, pointerTo(pointer, 'approvers'), problems, groups);
  }
  if (rule.required !== undefined) {
    const required = rule.required;
    if (
      typeof required !== 'number' ||
      !Number.isInteger(required) ||
      required < 1 ||
      required > MAX_REQUIRED_APPROVALS
    ) {
      problems.push({
        code: 'approval_rule_invalid',
        pointer: pointerTo(pointer, 'required'),
        message: `required is a whole number from 1 to ${MAX_REQUIRED_APPROVALS}`,
      });
    }
  }
}

/**
 * Checks an approval policy document, reporting every problem with its JSON
 * pointer. Whether each credential id names a member of the workspace is the
 * kernel's check (it needs the store).
 */
export function validateApprovalPolicy(document: unknown): Validated<ApprovalPolicy> {
  if (!isObject(document)) {
    return invalid([
      {
        code: 'approval_policy_not_object',
        pointer: '',
        message: 'an approval policy is an object with groups, rules and no_self_approval',
      },
    ]);
  }
  const problems: Problem[] = [];
  for (const key of Object.keys(document)) {
    if (!POLICY_KEYS.has(key)) {
      problems.push({
        code: 'approval_policy_key_unknown',
        pointer: pointerTo('', key),
        message: `unknown key "${key}"; a policy has groups, rules and no_self_approval`,
      });
    }
  }
  const groupNames = new Set<string>();
  if (document.groups !== undefined) {
    if (!isObject(document.groups)) {
      problems.push({
        code: 'approval_group_invalid',
        pointer: '/groups',
        message: 'groups maps a group name to a list of member credential ids',
      });
    } else {
      for (const [name, members] of Object.entries(document.groups)) {
        const at = pointerTo('/groups', name);
        if (!GROUP_NAME.test(name)) {
          problems.push({
            code: 'approval_group_invalid',
            pointer: at,
            message:
              'a group name is 1 to 64 of a-z, 0-9, _ and -, starting with a letter or digit',
          });
        }
        checkMembers(members, at, problems, null);
        groupNames.add(name);
      }
    }
  }
  if (document.rules !== undefined) {
    if (!Array.isArray(document.rules) || document.rules.length > 500) {
      problems.push({
        code: 'approval_rule_invalid',
        pointer: '/rules',
        message: 'rules is a list of at most 500 rules',
      });
    } else {
      document.rules.forEach((rule, index) => {
        checkRule(rule, pointerTo('/rules', index), problems, groupNames);
      });
    }
  }
  if (document.no_self_approval !== undefined && typeof document.no_self_approval !== 'boolean') {
    problems.push({
      code: 'approval_rule_invalid',
      pointer: '/no_self_approval',
      message: 'no_self_approval is true or false',
    });
  }
  if (problems.length > 0) return invalid(problems);
  const policy = document as ApprovalPolicy;
  (policy.rules ?? []).forEach((rule, index) => {
    const required = rule.required ?? 1;
    const approvers = rule.approvers ? namedApprovers(policy, rule.approvers).length : null;
    if (approvers !== null && approvers < required) {
      problems.push({
        code: 'approval_quorum_unreachable',
        pointer: pointerTo(pointerTo('/rules', index), 'required'),
        message: `the rule asks ${required} approvals of ${approvers} distinct member(s): no call it covers could ever be approved`,
      });
    }
  });
  return problems.length > 0 ? invalid(problems) : valid(policy);
}

/** The distinct members (`member:cred_x`) a rule's approvers name, each group expanded. */
function namedApprovers(policy: ApprovalPolicy, entries: readonly string[]): string[] {
  const set = new Set<string>();
  for (const entry of entries) {
    const members = entry.startsWith('group:')
      ? (policy.groups?.[entry.slice('group:'.length)] ?? [])
      : [entry];
    for (const member of members) {
      const id = credentialIdOf(member);
      if (id) set.add(`member:${id}`);
    }
  }
  return [...set];
}

/** Every credential id a valid policy names (in groups and rules), each once. */
export function policyCredentialIds(policy: ApprovalPolicy): string[] {
  const ids = new Set<string>();
  const add = (entry: string) => {
    const id = credentialIdOf(entry);
    if (id) ids.add(id);
  };
  for (const members of Object.values(policy.groups ?? {})) members.forEach(add);
  for (const rule of policy.rules ?? []) (rule.approvers ?? []).forEach(add);
  return [...ids];
}

function covers(rule: ApprovalPolicyRule, call: ApprovalSubject): boolean {
  if (rule.tool !== undefined) {
    if (!rule.tool.split('|').some((glob) => matchGlob(glob, call.toolName))) return false;
  }
  if (rule.actions !== undefined && !rule.actions.some((tag) => call.actionTags.includes(tag))) {
    return false;
  }
  if (rule.rule_set !== undefined && rule.rule_set !== call.ruleSet) return false;
  if (rule.application !== undefined && rule.application !== call.applicationId) return false;
  return true;
}

/**
 * What a (valid) policy asks of one call: the first rule that covers it
 * decides who may approve and how many must; with no such rule one approval
 * by any member of the workspace is enough.
 */
export function approvalRequirement(
  policy: ApprovalPolicy | null,
  call: ApprovalSubject,
): ApprovalRequirement {
  const noSelf = policy?.no_self_approval === true;
  const rules = policy?.rules ?? [];
  const index = rules.findIndex((rule) => covers(rule, call));
  const rule = index < 0 ? undefined : rules[index];
  if (!rule) return { rule_index: null, required: 1, approvers: null, no_self_approval: noSelf };
  const approvers = rule.approvers && policy ? namedApprovers(policy, rule.approvers) : null;
  return { rule_index: index, required: rule.required ?? 1, approvers, no_self_approval: noSelf };
}
