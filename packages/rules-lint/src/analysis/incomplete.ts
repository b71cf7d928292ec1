import type { LintReport } from '../rules/lint-rule.js';
import type { RuleEntry } from './rule-entry.js';
import { RULE_WORK_UNITS, type WorkBudget } from './work-budget.js';

/**
 * The code of the finding a lint rule adds when its work budget ran out
 * and some questions were left undecided: configurable like a lint rule
 * (`"rules": {"analysis-incomplete": "error"}`), a warning by default.
 */
export const ANALYSIS_INCOMPLETE = 'analysis-incomplete';

/** Codes a config may set and a suppression may name besides the lint rules' ids. */
export const EXTRA_FINDING_CODES: readonly string[] = [ANALYSIS_INCOMPLETE];

/**
 * Counts the subjects a lint rule could not decide once its budget ran
 * out, and reports them in one finding at the first of them.
 */
export class UndecidedTally {
  private first: RuleEntry | undefined;
  private count = 0;
  private asked = 0;

  constructor(
    private readonly ruleId: string,
    private readonly budget: WorkBudget,
    private readonly noun: string,
  ) {}

  /** Notes one subject's question; `decided` false when it found nothing. */
  note(subject: RuleEntry, found: boolean): void {
    this.asked += 1;
    if (found || !this.budget.exhausted) return;
    this.count += 1;
    this.first ??= subject;
  }

  /** The analysis-incomplete finding, when a question was left undecided. */
  report(): LintReport | undefined {
    if (!this.first) return undefined;
    return {
      code: ANALYSIS_INCOMPLETE,
      severity: 'warning',
      pointer: this.first.pointer,
      message:
        `${this.ruleId} left ${this.count} of ${this.asked} ${this.noun} undecided (from rule ${this.first.index} on): ` +
        `its work budget (${RULE_WORK_UNITS.toLocaleString('en-US')} units per list) ran out, so its findings there may be missing. ` +
        'Split the list or simplify its globs.',
    };
  }
}
