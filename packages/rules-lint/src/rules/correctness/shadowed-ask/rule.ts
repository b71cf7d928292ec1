import { CoverIndex } from '../../../analysis/cover-index.js';
import { UndecidedTally } from '../../../analysis/incomplete.js';
import { RULE_WORK_UNITS, WorkBudget, withWorkBudget } from '../../../analysis/work-budget.js';
import type { LintReport, LintRule } from '../../lint-rule.js';
import { shadowingRules } from '../shadowed-allow/rule.js';

/** An ask rule every one of whose matches is also matched by a deny rule of its origin. */
export const shadowedAsk: LintRule = {
  id: 'shadowed-ask',
  category: 'correctness',
  severity: 'warning',
  fixKind: 'none',
  docs: {
    summary:
      'An ask rule that can never park a call, because deny rules of its origin match every call it matches.',
    description:
      'Deny wins over ask whatever the order, so an ask rule whose every match is also matched by deny rules addressing the same origin never asks anyone: ' +
      'each of its calls is refused. It reads like "a person decides" while the list says "never". Narrow the deny rules, or remove the ask rule.',
    semantics:
      'As for `shadowed-allow`, with the deny rules of the same origin as the covers: the ask rule A is reported when the set of calls A matches is a subset of the union ' +
      'of the calls matched by those deny rules, decided exactly on the same automata and under the same bounds (an undecided question is not reported; when any is, one `analysis-incomplete` finding says how many).',
    bad: '[\n  {"tool": "bash", "path": "command", "match": "*rm -rf*", "verdict": "deny", "reason": "no recursive deletes"},\n  {"tool": "bash", "path": "command", "match": "*rm -rf /tmp/*", "verdict": "ask"}\n]',
    good: '[\n  {"tool": "bash", "path": "command", "match": "*rm -rf /*", "verdict": "deny", "reason": "not from the root"},\n  {"tool": "bash", "path": "command", "match": "*rm -rf*", "verdict": "ask"}\n]',
  },
  check({ rules }) {
    const budget = new WorkBudget(RULE_WORK_UNITS);
    const undecided = new UndecidedTally('shadowed-ask', budget, 'ask rules');
    return withWorkBudget(budget, () => {
      const indexes = new Map<string, CoverIndex>();
      const reports: LintReport[] = [];
      for (const ask of rules) {
        if (ask.verdict !== 'ask') continue;
        let index = indexes.get(ask.origin);
        if (!index) {
          index = new CoverIndex(
            rules.filter((other) => other.origin === ask.origin && other.verdict === 'deny'),
          );
          indexes.set(ask.origin, index);
        }
        const named = shadowingRules(ask, index);
        undecided.note(ask, named !== undefined);
        if (!named) continue;
        const names = named.slice(0, 5).map((cover) => String(cover.index));
        const more = named.length > 5 ? ` and ${named.length - 5} more` : '';
        reports.push({
          pointer: ask.pointer,
          message:
            `ask rule ${ask.index} never parks a call: every ${ask.origin} call it matches is also matched by deny rule${named.length > 1 ? 's' : ''} ${names.join(', ')}${more}, ` +
            'and deny wins over ask, so those calls are refused. Narrow the deny rules or remove this one.',
        });
      }
      const incomplete = undecided.report();
      return incomplete ? [...reports, incomplete] : reports;
    });
  },
};
