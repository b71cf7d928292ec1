import { describe, expect, it } from 'vitest';
import type { Decision } from '../schemas/approval.js';
import type { LayerDecision } from '../schemas/layers.js';
import { combineLayers } from './combine-layers.js';

const granted: Decision = {
  outcome: 'granted',
  granted_by: 'rule',
  error: null,
  matched: [0],
  tool_name: 'bash',
};
const parked: Decision = { ...granted, outcome: 'parked', granted_by: null };
const denied: Decision = {
  ...granted,
  outcome: 'denied',
  granted_by: null,
  error: { code: 'approval_denied', detail: 'no' },
};

function layer(
  verdict: LayerDecision['verdict'],
  extra: Partial<LayerDecision> = {},
): LayerDecision {
  return {
    layer: 'action_contract',
    verdict,
    rule: { index: 0, list: 'forbidden', text: 'action:destructive' },
    detail: `${verdict} by contract`,
    reminders: [],
    ...extra,
  };
}

describe('combineLayers', () => {
  it('returns the declared decision untouched when no other layer applies', () => {
    expect(combineLayers(granted, [])).toBe(granted);
  });

  it('lets a stricter layer turn a grant into a refusal the model reads', () => {
    const combined = combineLayers(granted, [layer('deny')]);
    expect(combined.outcome).toBe('denied');
    expect(combined.granted_by).toBeNull();
    expect(combined.error).toEqual({ code: 'approval_denied', detail: 'deny by contract' });
    expect(combined.layer).toBe('action_contract');
    expect(combined.layers?.map((l) => l.layer)).toEqual(['approval_rules', 'action_contract']);
  });

  it('lets a stricter layer park a granted call', () => {
    const combined = combineLayers(granted, [layer('ask')]);
    expect(combined.outcome).toBe('parked');
    expect(combined.error).toBeNull();
    expect(combined.layer).toBe('action_contract');
  });

  it('never lets another layer grant what the declared rules park or refuse', () => {
    expect(combineLayers(parked, [layer('allow')]).outcome).toBe('parked');
    expect(combineLayers(denied, [layer('allow')]).outcome).toBe('denied');
    expect(combineLayers(denied, [layer('ask')]).error?.detail).toBe('no');
    expect(combineLayers(denied, [layer('deny')]).layer).toBe('approval_rules');
  });

  it('keeps the first of equally strict layers and gathers every reminder', () => {
    const first = layer('ask', { layer: 'rule_set', detail: 'rule set asks', reminders: ['a'] });
    const second = layer('ask', { reminders: ['b'] });
    const combined = combineLayers(granted, [first, second]);
    expect(combined.layer).toBe('rule_set');
    expect(combined.reminders).toEqual(['a', 'b']);
  });

  it('names the layer when a refusing layer gives no detail', () => {
    const combined = combineLayers(granted, [layer('deny', { detail: null })]);
    expect(combined.error?.detail).toBe('denied by the action_contract layer');
  });
});
