import { describe, expect, it } from 'vitest';
import { frozenOf } from './policy-layers.js';

const layers = {
  permission_rule_set: 'team',
  custom_rule_sets: [{ id: 'team', rules: [{ verdict: 'deny', tools: ['bash'] }] }],
  tool_manifest: [{ name: 'bash', input_schema: { type: 'object' }, commands: ['/command'] }],
};

describe('frozenOf', () => {
  it('hands every call the same deeply frozen configuration, which no reader can change', () => {
    const run = { id: 'run-frozen-1', policy_layers: JSON.stringify(layers) };
    const first = frozenOf(run)!;
    expect(frozenOf(run)).toBe(first);
    const sets = first.custom_rule_sets as { rules: { tools: string[] }[] }[];
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(sets[0]!.rules[0]!.tools)).toBe(true);
    expect(() => {
      sets[0]!.rules[0]!.tools.push('deploy');
    }).toThrow(TypeError);
    expect(frozenOf(run)).toEqual(layers);
  });

  it('parses a run again when its stored text is not the one it cached', () => {
    const run = { id: 'run-frozen-2', policy_layers: JSON.stringify(layers) };
    expect(frozenOf(run)?.permission_rule_set).toBe('team');
    const edited = { ...run, policy_layers: JSON.stringify({ permission_rule_set: 'baseline' }) };
    expect(frozenOf(edited)).toEqual({ permission_rule_set: 'baseline' });
    expect(frozenOf({ ...run, policy_layers: null })).toBeNull();
  });
});
