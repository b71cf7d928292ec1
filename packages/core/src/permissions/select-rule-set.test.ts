import { describe, expect, it } from 'vitest';
import { selectRuleSet } from './select-rule-set.js';

const teamSet = () => ({
  id: 'team',
  rules: Array.from({ length: 121 }, (_, i) => ({
    verdict: i % 3 === 0 ? ('deny' as const) : ('allow' as const),
    risks: ['write'],
    targets: [`pkg-${i}/**/*.ts`],
  })),
});

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

const select = (customRuleSets: unknown[], id = 'team') =>
  selectRuleSet({ id, customRuleSets, approvalMode: 'ask' });

describe('selectRuleSet on the same custom set object', () => {
  it('validates a deeply frozen set once, however often a run selects it', () => {
    // A rule that counts the reads of its fields; frozen, so the set may be trusted unchanged.
    let reads = 0;
    const counted = new Proxy(deepFreeze({ verdict: 'allow', targets: ['a/**'] }), {
      get(target, key, receiver) {
        reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    const set = teamSet();
    const sets = [deepFreeze({ ...set, rules: [counted, ...set.rules] })];
    expect(select(sets)).toMatchObject({ ok: true });
    expect(reads).toBeGreaterThan(0);
    const afterFirst = reads;
    for (let i = 0; i < 5; i++) expect(select(sets)).toMatchObject({ ok: true });
    expect(reads).toBe(afterFirst);
  });

  it('validates an unfrozen set anew once it changes', () => {
    const set = teamSet();
    expect(select([set])).toMatchObject({ ok: true });
    expect(select([set])).toMatchObject({ ok: true });
    (set.rules[7] as { verdict: string }).verdict = 'maybe';
    expect(select([set])).toMatchObject({
      ok: false,
      reason: 'malformed',
      detail: expect.stringContaining('/custom_rule_sets/0/rules/7/verdict'),
    });
    (set as { disabled?: boolean }).disabled = true;
    (set.rules[7] as { verdict: string }).verdict = 'allow';
    expect(select([set])).toMatchObject({ ok: false, reason: 'disabled' });
  });

  it('does not trust a frozen set that a getter or a prototype could change', () => {
    let verdict = 'allow';
    const rule = Object.freeze({
      get verdict() {
        return verdict;
      },
      targets: ['a/**'],
    });
    const sets = [Object.freeze({ id: 'team', rules: Object.freeze([rule]) })];
    expect(select(sets)).toMatchObject({ ok: true });
    verdict = 'maybe';
    expect(select(sets)).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('names the index the set sits at now in a malformed detail', () => {
    const bad = deepFreeze({ id: 'team', rules: [{ verdict: 'maybe' }] });
    expect(select([bad])).toMatchObject({
      detail: expect.stringContaining('/custom_rule_sets/0/'),
    });
    expect(select([{ id: 'other', rules: [] }, bad])).toMatchObject({
      detail: expect.stringContaining('/custom_rule_sets/1/'),
    });
  });
});
