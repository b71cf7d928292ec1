/**
 * A bound on the automaton work one lint rule may spend on a whole list, so
 * that no list, however crafted, stalls `check` or an editor. Questions
 * asked after it runs out answer "unknown", which the rules never report.
 */
export class WorkBudget {
  private left: number;

  constructor(readonly units: number) {
    this.left = units;
  }

  /** Takes `units` from the budget; false when they are not there, and the budget is then spent. */
  spend(units: number): boolean {
    if (units > this.left) {
      this.left = 0;
      return false;
    }
    this.left -= units;
    return true;
  }

  /** Units taken so far (what a failed spend would have taken is not counted). */
  get spent(): number {
    return this.units - this.left;
  }

  /** True once a spend has failed or everything is used. */
  get exhausted(): boolean {
    return this.left <= 0;
  }
}

/**
 * Units one lint rule may spend on one list: a unit is one automaton
 * position stepped (or one character of a candidate rule's glob check, or
 * one rule looked at by a scan; a product position costs PRODUCT_STEP_UNITS),
 * roughly 10 ns here, so the bound is well under a second.
 */
export const RULE_WORK_UNITS = 30_000_000;

/**
 * Units one position stepped in a product exploration costs the rule's
 * budget: besides the step, it builds and sorts the closed state and its
 * key, and keeps the key in a set; measured at about 20 plain units.
 */
export const PRODUCT_STEP_UNITS = 20;

let current: WorkBudget | undefined;

/** Runs `work` with `budget` as the budget every glob question inside it draws from. */
export function withWorkBudget<T>(budget: WorkBudget, work: () => T): T {
  const previous = current;
  current = budget;
  try {
    return work();
  } finally {
    current = previous;
  }
}

/** The budget of the running lint rule, if any (questions asked outside one are bounded per question only). */
export function currentWorkBudget(): WorkBudget | undefined {
  return current;
}
