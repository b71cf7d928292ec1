import type { Validated } from '../issues/problem.js';
import type { ApprovalMode } from '../schemas/approval.js';
import type { CustomRuleSet, PermissionRule } from '../schemas/permissions.js';
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
 * A custom set's validation, with what tells whether the set is still the one validated: a
 * deeply frozen set cannot change; any other is compared by its JSON text.
 */
interface CachedValidation {
  readonly frozen: boolean;
  readonly text: string | null;
  readonly index: number;
  readonly validated: Validated<CustomRuleSet>;
}

const validations = new WeakMap<object, CachedValidation>();

/**
 * Validates a custom set once per set object: a run's stage hands over the same object on
 * every call, and validating a set of a hundred rules costs more than evaluating the call.
 * The answer is reused only for the same index (the problems' pointers name it) and while the
 * set cannot have changed: it was deeply frozen when validated, or it still reads as the same
 * JSON text (a set is JSON; a mutated set is validated anew).
 */
function validatedOnce(set: object, index: number): Validated<CustomRuleSet> {
  const cached = validations.get(set);
  if (cached?.frozen && cached.index === index) return cached.validated;
  const text = jsonText(set);
  if (cached !== undefined && text !== null && cached.text === text && cached.index === index) {
    return cached.validated;
  }
  const validated = validateCustomRuleSet(set, `/custom_rule_sets/${index}`);
  const frozen = deeplyFrozen(set, 0);
  if (frozen || text !== null) validations.set(set, { frozen, text, index, validated });
  return validated;
}

/**
 * Whether nothing under a value can change: every object frozen, plain (no prototype to
 * answer a missing key) and holding data properties only (no getter). One nested past 64
 * levels counts as changeable.
 */
function deeplyFrozen(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (depth > 64 || !Object.isFrozen(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== Array.prototype) return false;
  return Object.values(Object.getOwnPropertyDescriptors(value)).every(
    (property) => 'value' in property && deeplyFrozen(property.value, depth + 1),
  );
}

/** The JSON text of a value, or null when it has none (a cycle, a bigint). */
function jsonText(value: object): string | null {
  try {
    return JSON.stringify(value);
  } catch {
    return null;
  }
}

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
  const validated = validatedOnce(options.customRuleSets![index] as object, index);
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
