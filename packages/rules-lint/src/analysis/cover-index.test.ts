import { describe, expect, it } from 'vitest';
import { CoverIndex } from './cover-index.js';
import { ruleEntries } from './rule-entry.js';
import { WorkBudget, withWorkBudget } from './work-budget.js';

/** `count` rules that all match each other: every lookup finds every other rule. */
function sameRules(count: number) {
  return ruleEntries(
    Array.from({ length: count }, () => ({ tool: 'bash', verdict: 'allow' })),
    '',
  );
}

/** `count` tool globs of question marks and a star: `?*` matches every other one's samples. */
function questionGlobs(count: number) {
  return ruleEntries(
    Array.from({ length: count }, (_, index) => ({
      tool: `${'?'.repeat((index % 50) + 1)}*`,
      verdict: 'deny',
      reason: 'r',
    })),
    '',
  );
}

/** Asks `impliers` for every rule, as redundant-rule does; returns how many candidates came back. */
function askAll(index: CoverIndex, budget: WorkBudget): number {
  return withWorkBudget(budget, () =>
    index.entries.reduce((total, entry) => total + index.impliers(entry).length, 0),
  );
}

describe('the cover index and the work budget', () => {
  it.each([
    ['identical rules', sameRules],
    ['question-mark globs', questionGlobs],
  ])('charges every candidate of a lookup (%s)', (_label, make) => {
    const index = new CoverIndex(make(300));
    const budget = new WorkBudget(1_000_000_000);
    const found = askAll(index, budget);
    expect(found).toBeGreaterThan(0);
    // At least one unit per candidate confirmed: the count the quadratic case is made of.
    expect(budget.spent).toBeGreaterThanOrEqual(found);
  });

  it.each([
    ['identical rules', sameRules],
    ['question-mark globs', questionGlobs],
  ])('keeps the lookups of a whole list within the budget (%s)', (_label, make) => {
    const rules = make(3_000);
    const budget = new WorkBudget(200_000);
    const found = askAll(new CoverIndex(rules), budget);
    // Without charging, 3,000 rules that match each other return about 9 million candidates.
    expect(found).toBeLessThanOrEqual(200_000);
    expect(budget.spent).toBeLessThanOrEqual(200_000);
    expect(budget.exhausted).toBe(true);
  });

  it('leaves the scan of overlapping rules undone once the budget cannot pay for it', () => {
    const index = new CoverIndex(sameRules(100));
    const [first] = index.entries;
    const small = new WorkBudget(50);
    expect(withWorkBudget(small, () => index.overlapping(first!))).toBeUndefined();
    const ample = new WorkBudget(1_000);
    expect(withWorkBudget(ample, () => index.overlapping(first!))).toHaveLength(99);
    expect(ample.spent).toBe(100);
  });
});
