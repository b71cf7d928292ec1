import { CoverIndex } from '../../../analysis/cover-index.js';
import { UndecidedTally } from '../../../analysis/incomplete.js';
import { ruleCoveredByUnion, ruleImplies } from '../../../analysis/rule-containment.js';
import type { RuleEntry } from '../../../analysis/rule-entry.js';
import { RULE_WORK_UNITS, WorkBudget, withWorkBudget } from '../../../analysis/work-budget.js';
import type { LintReport, LintRule } from '../../lint-rule.js';

/** An allow rule every one of whose matches is also matched by a deny or ask rule of its origin. */
export const shadowedAllow: LintRule = {
  id: 'shadowed-allow',
  category: 'correctness',
  severity: 'error',
  fixKind: 'none',
  docs: {
    summary:
      'An allow rule that can never grant, because deny or ask rules of its origin match every call it matches.',
    description:
      'The kernel collects every matching rule and lets deny win over ask and ask over allow, whatever their order. ' +
      'An allow rule whose every match is also matched by deny or ask rules addressing the same origin therefore never grants anything: ' +
      'it reads like a permission but does nothing. Narrow the deny or ask rules, or remove the allow.',
    semantics:
      'A call is a resolved tool name and an input. A rule matches the names its `|`-separated anchored globs match; a rule without `path` matches every input, ' +
      'a rule with `path` matches the inputs whose text at that path is in the language of its `match` (`*` when absent). ' +
      'The allow rule A is reported when the set of calls A matches is a subset of the union of the calls matched by the deny and ask rules B1..Bn with the same origin. ' +
      "A rule with a path can be covered only by rules without path or with the same path (segment by segment): for any other path some input has text at A's path and none at the other. " +
      "The union is decided exactly: for each alternative of A's tool pattern the linter explores the product of that glob's automaton with the determinized automaton of all the B alternatives, " +
      'over the bytes the globs name plus one symbol for every other byte; each reachable state where A accepts gives the exact set S of B rules matching some name there, ' +
      "and A's text language must then be inside the union of the text languages of S (a rule of S without path or without match covers every text). " +
      'Languages are over byte strings; two globs that differ only on texts that are not UTF-8 are treated as different, which can only hide a finding, never invent one. ' +
      'Cost bound: rules that could cover are found through an index (tool globs, and match globs per path, filed by literal prefix, suffix or inner piece) from concrete sample calls of A, and every candidate looked at is charged to the work budget of the lint rule, so a list costs near-linear time; a union of more than 64 candidate rules, a product of more than 20,000 states, or a question once the rule has spent its work budget on the list is left undecided and not reported (never guessed); when any is, one `analysis-incomplete` finding says how many.',
    bad: '[\n  {"tool": "bash", "verdict": "deny", "reason": "no shell in this agent"},\n  {"tool": "bash", "path": "command", "match": "ls", "verdict": "allow"}\n]',
    good: '[\n  {"tool": "bash", "path": "command", "match": "*rm -rf*", "verdict": "deny", "reason": "no recursive deletes"},\n  {"tool": "bash", "path": "command", "match": "ls", "verdict": "allow"}\n]',
  },
  check({ rules }) {
    const budget = new WorkBudget(RULE_WORK_UNITS);
    const undecided = new UndecidedTally('shadowed-allow', budget, 'allow rules');
    return withWorkBudget(budget, () => {
      const indexes = new Map<string, CoverIndex>();
      const reports: LintReport[] = [];
      for (const allow of rules) {
        if (allow.verdict !== 'allow') continue;
        let index = indexes.get(allow.origin);
        if (!index) {
          index = new CoverIndex(
            rules.filter((other) => other.origin === allow.origin && other.verdict !== 'allow'),
          );
          indexes.set(allow.origin, index);
        }
        const named = shadowingRules(allow, index);
        undecided.note(allow, named !== undefined);
        if (!named) continue;
        const names = named.slice(0, 5).map((cover) => `${cover.index} (${cover.verdict})`);
        const more = named.length > 5 ? ` and ${named.length - 5} more` : '';
        reports.push({
          pointer: allow.pointer,
          message:
            `allow rule ${allow.index} can never grant: every ${allow.origin} call it matches is also matched by rule${named.length > 1 ? 's' : ''} ${names.join(', ')}${more}, ` +
            'and deny and ask win over allow. Narrow those rules or remove this one.',
        });
      }
      const incomplete = undecided.report();
      return incomplete ? [...reports, incomplete] : reports;
    });
  },
};

/**
 * The rules that cover every call of `subject` (the one that does it alone
 * when there is one), or undefined when some call escapes them or the
 * question ran out of budget. Cheap steps first: a sample call no rule
 * matches, then single rules matching a sample call, then the union of the
 * rules that may share a call with it.
 */
export function shadowingRules(subject: RuleEntry, index: CoverIndex): RuleEntry[] | undefined {
  if (index.uncoveredSample(subject)) return undefined;
  const single = index.impliers(subject).find((cover) => ruleImplies(subject, cover) === true);
  if (single) return [single];
  const covers = index.overlapping(subject);
  if (covers === undefined) return undefined;
  return ruleCoveredByUnion(subject, covers) === true ? covers : undefined;
}
