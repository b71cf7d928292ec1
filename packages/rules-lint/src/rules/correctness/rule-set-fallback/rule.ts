import { BUILT_IN_RULE_SET_IDS, selectRuleSet } from '@airlock/core';
import { nearestName } from '../../../analysis/nearest-name.js';
import type { LintRule } from '../../lint-rule.js';

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
    const suggestion = nearestName(permissionRuleSet, ids);
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
