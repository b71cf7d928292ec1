import { withAliasTargets } from '../../../analysis/aliased-calls.js';
import { CoverIndex } from '../../../analysis/cover-index.js';
import { UndecidedTally } from '../../../analysis/incomplete.js';
import { ruleImplies } from '../../../analysis/rule-containment.js';
import type { RuleEntry } from '../../../analysis/rule-entry.js';
import { callsMayIntersect } from '../../../analysis/sample-calls.js';
import { RULE_WORK_UNITS, WorkBudget, withWorkBudget } from '../../../analysis/work-budget.js';
import type { LintReport, LintRule } from '../../lint-rule.js';

/**
 * True when removing `subject` leaves every denial detail the same, given
 * `cover` matches all its calls: an earlier cover is always the first
 * matching deny; a later cover with the same nonempty reason reads the same,
 * provided no deny in between could match with another reason (also a call
 * made by an alias, which a deny binds by either name).
 */
function denialUnchanged(
  subject: RuleEntry,
  cover: RuleEntry,
  denies: readonly RuleEntry[],
  toolAliases: Readonly<Record<string, string>>,
): boolean {
  if (cover.index < subject.index) return true;
  if (!subject.reason || subject.reason !== cover.reason) return false;
  return !denies.some(
    (other) =>
      other.index > subject.index &&
      other.index < cover.index &&
      other.reason !== subject.reason &&
      sharesTool(withAliasTargets(subject, toolAliases), withAliasTargets(other, toolAliases)),
  );
}

/** Whether two rules' tool patterns may match one name (their texts ignored). */
function sharesTool(a: RuleEntry, b: RuleEntry): boolean {
  return callsMayIntersect({ ...a, path: null }, b);
}

/** A rule implied by another rule of the same verdict and origin. */
export const redundantRule: LintRule = {
  id: 'redundant-rule',
  category: 'style',
  severity: 'warning',
  fixKind: 'unsafe',
  docs: {
    summary: 'A rule implied by another rule with the same verdict and origin.',
    description:
      'When every call a rule matches is also matched by another rule with the same verdict and origin, the rule adds nothing: the outcome of every call is the same ' +
      'without it. Redundant rules make a list longer to review and hide which rule really decides. Remove it. The quick fix removes it; it is unsafe only because ' +
      'later rule numbers (and the `matched` list) shift.',
    semantics:
      'A final catch-all allow (`{"tool": "*", "verdict": "allow"}` as the last rule) is the spec\'s idiom for "grant what nothing else decides": allow rules implied only by it are not reported; one info finding on the catch-all lists them instead. ' +
      "Rule A is implied by rule B when tools(A) ⊆ tools(B) (every alternative of A inside the union of B's alternatives, decided exactly), and either B has no path, " +
      'or both have the same path and L(A.match) ⊆ L(B.match), a missing match meaning `*`. For deny rules the reason rides on the refusal, so A is reported only ' +
      'when B comes first, or both carry the same nonempty reason and no deny rule between them that may share a tool carries another (a deny naming an alias in `tool_aliases` shares the tool the alias resolves to: it binds a call made by that name). When A and B imply each other, only the later one is reported.',
    bad: '[\n  {"tool": "bash", "path": "command", "match": "*rm -rf*", "verdict": "deny", "reason": "no recursive deletes"},\n  {"tool": "bash", "path": "command", "match": "*rm -rf /*", "verdict": "deny", "reason": "not the root"}\n]',
    good: '[\n  {"tool": "bash", "path": "command", "match": "*rm -rf*", "verdict": "deny", "reason": "no recursive deletes"},\n  {"tool": "bash", "path": "command", "match": "*git push*--force*", "verdict": "deny", "reason": "no force push"}\n]',
  },
  check({ rules, listLength, toolAliases }) {
    const budget = new WorkBudget(RULE_WORK_UNITS);
    const undecided = new UndecidedTally('redundant-rule', budget, 'rules');
    return withWorkBudget(budget, () => {
      const groups = new Map<string, CoverIndex>();
      const reports: LintReport[] = [];
      const catchAll = finalCatchAll(rules, listLength);
      const impliedByCatchAll: number[] = [];
      for (const subject of rules) {
        const key = `${subject.verdict} ${subject.origin}`;
        let index = groups.get(key);
        if (!index) {
          index = new CoverIndex(
            rules.filter(
              (other) => other.verdict === subject.verdict && other.origin === subject.origin,
            ),
          );
          groups.set(key, index);
        }
        const group = index.entries;
        const impliers = index.impliers(subject);
        const cover = impliers.find(
          (other) =>
            other !== catchAll &&
            ruleImplies(subject, other) === true &&
            !(other.index > subject.index && ruleImplies(other, subject) === true) &&
            (subject.verdict !== 'deny' || denialUnchanged(subject, other, group, toolAliases)),
        );
        undecided.note(subject, cover !== undefined);
        if (!cover) {
          if (catchAll && impliers.includes(catchAll) && ruleImplies(subject, catchAll) === true)
            impliedByCatchAll.push(subject.index);
          continue;
        }
        reports.push({
          pointer: subject.pointer,
          message:
            `rule ${subject.index} is implied by rule ${cover.index} (same verdict and origin): every call it matches, rule ${cover.index} matches too, ` +
            'so removing it changes no outcome. Remove it.',
          fix: {
            title: `Remove rule ${subject.index}`,
            kind: 'unsafe',
            operations: [{ op: 'remove', pointer: subject.pointer }],
          },
        });
      }
      if (catchAll && impliedByCatchAll.length > 0)
        reports.push(catchAllNote(catchAll, impliedByCatchAll));
      const incomplete = undecided.report();
      return incomplete ? [...reports, incomplete] : reports;
    });
  },
};

/**
 * The spec's idiom for "allow what nothing else decides": a last rule
 * `{"tool": "*", "verdict": "allow"}` (any origin, no path).
 */
function finalCatchAll(rules: readonly RuleEntry[], listLength: number): RuleEntry | undefined {
  const last = rules[rules.length - 1];
  if (!last || last.index !== listLength - 1) return undefined;
  return last.verdict === 'allow' && last.path === null && last.alternatives.includes('*')
    ? last
    : undefined;
}

/** One info finding on the catch-all instead of a warning on every allow it implies: that is its intent. */
function catchAllNote(catchAll: RuleEntry, implied: readonly number[]): LintReport {
  const listed =
    implied.slice(0, 8).join(', ') + (implied.length > 8 ? ` and ${implied.length - 8} more` : '');
  return {
    pointer: catchAll.pointer,
    severity: 'info',
    message:
      `rule ${catchAll.index} is a final catch-all allow: every ${catchAll.origin} call that no deny or ask rule matches is granted, so the ${implied.length} allow rule${implied.length === 1 ? '' : 's'} ` +
      `of that origin it implies (${listed}) decide nothing and are kept as documentation. Nothing to do if that is the intent; remove the catch-all to make the list an allowlist.`,
  };
}
