import { describe, expect, it } from 'vitest';
import { compileByteGlob } from '../glob/byte-nfa.js';
import { exploreProduct, findUncoveredText } from '../glob/inclusion.js';
import { PRODUCT_STEP_UNITS, WorkBudget, withWorkBudget } from './work-budget.js';

/** Positions times symbols stepped exploring `*a?b*` against `*ab*`. */
const UNWEIGHTED_SPEND = 360;

describe('the work budget of a lint rule', () => {
  it('stops an exploration once spent, and the answer is unknown rather than a guess', () => {
    const budget = new WorkBudget(10);
    const end = withWorkBudget(budget, () =>
      exploreProduct(compileByteGlob('*a*b*a*b*'), [compileByteGlob('*ab*')], () => true),
    );
    expect(end).toBe('exhausted');
    expect(budget.exhausted).toBe(true);
  });

  it('never remembers an answer cut short by the budget', () => {
    const cut = withWorkBudget(new WorkBudget(10), () =>
      findUncoveredText('*a?b*a*b*', ['*ab*', '*a?*b*', '*a??b*']),
    );
    expect(cut).toBeUndefined();
    // Asked again with room to spare, the same question gets its real answer.
    expect(findUncoveredText('*a?b*a*b*', ['*ab*', '*a?*b*', '*a??b*'])).toBeNull();
  });

  it('charges a product exploration for its states and keys, not only its steps', () => {
    const budget = new WorkBudget(1_000_000);
    withWorkBudget(budget, () =>
      exploreProduct(compileByteGlob('*a?b*'), [compileByteGlob('*ab*')], () => true),
    );
    expect(budget.spent).toBe(PRODUCT_STEP_UNITS * UNWEIGHTED_SPEND);
  });

  it('counts as spent once a spend does not fit', () => {
    const budget = new WorkBudget(5);
    expect(budget.spend(3)).toBe(true);
    expect(budget.spend(3)).toBe(false);
    expect(budget.exhausted).toBe(true);
  });
});
