import { BUILT_IN_RULE_SET_IDS, selectRuleSet } from '@airlock/core';
import type { LintRule } from '../../lint-rule.js';

/** The id nearest by edit distance, when it is near enough to be a typo. */
function nearest(wanted: string, ids: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(wanted.length / 3)) + 1;
  for (const id of ids) {
    const distance = editDistance(wanted, id);
    if (distance < bestDistance) {
      best = id;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const swap = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + swap);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** A profile whose selected rule set the kernel cannot use, so Baseline alone decides every call. */
export const ruleSetFallback: LintRule = {
  id: 'rule-set-fallback',
  category: 'correctness',
  severity: 'error',
  fixKind: 'none',
  docs: {
    summary:
      '`permission_rule_set` names a set the kernel cannot use (none of that id, disabled, or not written for the mode), so it falls back to Baseline and every call asks.',
    description:
      'The kernel resolves `permission_rule_set` to a built-in set or to the custom set of that id; when none is declared (a typo: `teem` for `team`), it is `disabled`, or its `modes` leave out the mode the profile runs under, ' +
      'it falls back to Baseline alone: no rule of the set and no overlay applies, and every call Baseline does not refuse asks a person. ' +
      'The kernel accepts such a profile without a word, so the linter says it, with the same detail the kernel gives the run. Fix the id, enable the set, or add the mode to its `modes`. ' +
      'A missing set is an error; a disabled or incompatible one is a warning, since it may be on purpose. A malformed set is reported where it is (`rule_set_invalid`).',
    bad: '{\n  "project_root": "/home/dev/app",\n  "permission_rule_set": "teem",\n  "custom_rule_sets": [{"id": "team", "rules": [{"verdict": "allow", "tools": ["Read"]}]}]\n}',
    good: '{\n  "project_root": "/home/dev/app",\n  "permission_rule_set": "team",\n  "custom_rule_sets": [{"id": "team", "rules": [{"verdict": "allow", "tools": ["Read"]}]}]\n}',
  },
  check({ permissionRuleSet, customRuleSets, mode }) {
    if (permissionRuleSet === undefined) return [];
    const selection = selectRuleSet({
      id: permissionRuleSet,
      customRuleSets,
      approvalMode: mode ?? 'ask',
    });
    if (selection.ok || selection.reason === 'malformed') return [];
    const consequence =
      'so the kernel falls back to Baseline alone: no rule of a set and no overlay applies, and every call Baseline does not refuse asks a person';
    if (selection.reason !== 'missing') {
      return [
        {
          pointer: '/permission_rule_set',
          severity: 'warning',
          message: `${selection.detail}, ${consequence}. ${selection.reason === 'disabled' ? 'Enable the set' : `Add ${mode ?? 'ask'} to its modes`}, or select another.`,
        },
      ];
    }
    const ids = [
      ...BUILT_IN_RULE_SET_IDS,
      ...(customRuleSets ?? []).flatMap((set) =>
        set !== null && typeof set === 'object' && typeof (set as { id?: unknown }).id === 'string'
          ? [(set as { id: string }).id]
          : [],
      ),
    ];
    const suggestion = nearest(permissionRuleSet, ids);
    return [
      {
        pointer: '/permission_rule_set',
        message:
          `permission_rule_set ${JSON.stringify(permissionRuleSet)} names no built-in set (${BUILT_IN_RULE_SET_IDS.join(', ')}) and no set of custom_rule_sets, ${consequence}.` +
          (suggestion
            ? ` Did you mean "${suggestion}"?`
            : ' Declare the set in custom_rule_sets, or select another.'),
      },
    ];
  },
};
