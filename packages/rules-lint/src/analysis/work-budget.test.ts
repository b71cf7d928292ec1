import { describe, expect, it } from 'vitest';
import { compileByteGlob } from '../glob/byte-nfa.js';
import { exploreProduct, findUncoveredText } from '../glob/inclusion.js';
import { WorkBudget, withWorkBudget } from './work-budget.js';

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

  it('counts as spent once a spend does not fit', () => {
    const budget = new WorkBudget(5);
    expect(budget.spend(3)).toBe(true);
    expect(budget.spend(3)).toBe(false);
    expect(budget.exhausted).toBe(true);
  });
});
