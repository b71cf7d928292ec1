import type { LayerDecision } from '../schemas/layers.js';
import type { PermissionOutcome } from './evaluate-permissions.js';

/**
 * The `rule_set` layer's entry on a decision: the verdict, and which rule
 * decided (rule set and version, scope, overlay group, index, the rule as JSON).
 */
export function permissionLayerDecision(outcome: PermissionOutcome): LayerDecision {
  return {
    layer: 'rule_set',
    verdict: outcome.verdict,
    rule: {
      index: outcome.index,
      rule_set: outcome.ruleSet,
      scope: outcome.scope,
      ...(outcome.group === undefined ? {} : { group: outcome.group }),
      ...(outcome.owner === undefined ? {} : { owner: outcome.owner }),
      ...(outcome.baselineCheck === undefined ? {} : { baseline_check: outcome.baselineCheck }),
      ...(outcome.rule === undefined ? {} : { text: JSON.stringify(outcome.rule) }),
    },
    detail: outcome.detail,
    reminders: [],
  };
}
