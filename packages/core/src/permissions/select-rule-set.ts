import type { ApprovalMode } from '../schemas/approval.js';
import type { PermissionRule } from '../schemas/permissions.js';
import { BUILT_IN_RULE_SETS, isBuiltInRuleSetId } from './built-in-rule-sets.js';
import { validateCustomRuleSet } from './validate-permissions.js';

/** A rule set ready to evaluate. */
export interface SelectedRuleSet {
  readonly id: string;
  readonly version: string;
  readonly rules: readonly PermissionRule[];
}

/** Why a selected custom set cannot be used (spec 003's four cases). */
export type FallbackReason = 'missing' | 'malformed' | 'disabled' | 'incompatible';

/** The set to evaluate, or why the host falls back to Baseline. */
export type RuleSetSelection =
  | { readonly ok: true; readonly set: SelectedRuleSet }
  | { readonly ok: false; readonly reason: FallbackReason; readonly detail: string };

/**
 * Resolves a selected rule-set id: a built-in set, or the custom set of that
 * id when it is well formed, enabled and written for the run's approval mode.
 */
export function selectRuleSet(options: {
  id: string;
  customRuleSets: readonly unknown[] | undefined;
  approvalMode: ApprovalMode;
}): RuleSetSelection {
  const { id } = options;
  if (isBuiltInRuleSetId(id)) {
    const set = BUILT_IN_RULE_SETS[id];
    return { ok: true, set: { id: set.id, version: set.version, rules: set.rules } };
  }
  const index = (options.customRuleSets ?? []).findIndex(
    (candidate) =>
      candidate !== null &&
      typeof candidate === 'object' &&
      (candidate as { id?: unknown }).id === id,
  );
  if (index < 0) {
    return { ok: false, reason: 'missing', detail: `no rule set "${id}" is declared` };
  }
  const validated = validateCustomRuleSet(
    options.customRuleSets![index],
    `/custom_rule_sets/${index}`,
  );
  if (!validated.ok) {
    const first = validated.problems[0]!;
    return {
      ok: false,
      reason: 'malformed',
      detail: `rule set "${id}" is malformed at ${first.pointer}: ${first.message}`,
    };
  }
  const set = validated.value;
  if (set.disabled)
    return { ok: false, reason: 'disabled', detail: `rule set "${id}" is disabled` };
  if (set.modes && !set.modes.includes(options.approvalMode)) {
    return {
      ok: false,
      reason: 'incompatible',
      detail: `rule set "${id}" is written for ${set.modes.join(', ')}, not ${options.approvalMode}`,
    };
  }
  return { ok: true, set: { id: set.id, version: set.version ?? '1', rules: set.rules } };
}
