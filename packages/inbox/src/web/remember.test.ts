import { expect, it } from 'vitest';
import { capturedRuleSet } from './remember.js';

it('finds the rule set captured on a decision, or none', () => {
  expect(
    capturedRuleSet({
      layers: [
        { layer: 'approval_rules', rule: null },
        { layer: 'rule_set', rule: { index: 2, rule_set: { id: 'supervised', version: '1' } } },
      ],
    }),
  ).toBe('supervised');
  expect(
    capturedRuleSet({ layers: [{ layer: 'action_contract', rule: { index: 0 } }] }),
  ).toBeNull();
  expect(capturedRuleSet({ outcome: 'parked' })).toBeNull();
  expect(capturedRuleSet(null)).toBeNull();
});
