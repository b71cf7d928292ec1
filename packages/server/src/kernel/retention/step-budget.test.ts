import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StepBudget } from './step-budget.js';

describe('StepBudget', () => {
  it('starts small, and takes as many as fit the budget after a slow unit', () => {
    const budget = new StepBudget({ maxRows: 500, budgetMs: 3 });
    expect(budget.rows).toBe(50);
    expect(new StepBudget({ maxRows: 3, budgetMs: 3 }).rows).toBe(3);
    // 50 rows took 2 ms: 25 rows a millisecond, so 75 fit in 3 ms.
    budget.record(50, 2);
    expect(budget.rows).toBe(75);
    // 75 rows took 15 ms: 5 rows a millisecond, so 15 fit.
    budget.record(75, 15);
    expect(budget.rows).toBe(15);
  });

  it('grows at most twofold after a fast unit, up to the most rows', () => {
    const budget = new StepBudget({ maxRows: 500, budgetMs: 3 });
    expect(budget.rows).toBe(50);
    budget.record(50, 0.1);
    expect(budget.rows).toBe(100);
    budget.record(100, 0.1);
    budget.record(200, 0.1);
    budget.record(400, 0.1);
    expect(budget.rows).toBe(500);
  });

  it('never goes below the least rows, and ignores a unit that touched nothing', () => {
    const budget = new StepBudget({ maxRows: 500, budgetMs: 3, minRows: 10 });
    budget.record(500, 100_000);
    expect(budget.rows).toBe(10);
    budget.record(0, 1_000);
    expect(budget.rows).toBe(10);
  });

  it('always answers a size between the least and the most rows', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: -5, max: 2_000 }), fc.double())), (units) => {
        const budget = new StepBudget({ maxRows: 500, budgetMs: 3, minRows: 5 });
        for (const [rows, ms] of units) {
          budget.record(rows, ms);
          expect(Number.isInteger(budget.rows)).toBe(true);
          expect(budget.rows).toBeGreaterThanOrEqual(5);
          expect(budget.rows).toBeLessThanOrEqual(500);
        }
      }),
    );
  });
});
