import { matchGlob, type PermissionRule } from '@airlock/core';
import { globShape } from '../../../glob/glob-shape.js';
import { globIncluded } from '../../../glob/inclusion.js';
import type { PermissionRuleEntry } from '../../../permissions/permission-entries.js';
import type { LintReport, LintRule } from '../../lint-rule.js';

const WILDCARD = /[*?]/;

function subset<T>(inner: readonly T[] | undefined, outer: readonly T[] | undefined): boolean {
  if (outer === undefined) return true;
  return inner?.every((item) => outer.includes(item)) === true;
}

/** Whether every tool name `later` selects, `earlier` selects too. */
function selectsToolsOf(earlier: PermissionRule, later: PermissionRule): boolean {
  const globs = earlier.tools;
  const byGlobs =
    globs === undefined ||
    later.tools?.every((glob) => globWithin(glob, globs)) === true ||
    later.tool_names?.every((name) => globs.some((glob) => matchGlob(glob, name))) === true;
  const names = earlier.tool_names;
  const byNames =
    names === undefined ||
    subset(later.tool_names, names) ||
    later.tools?.every((glob) => !WILDCARD.test(glob) && names.includes(glob)) === true;
  return (
    byGlobs && byNames && subset(later.groups, earlier.groups) && subset(later.risks, earlier.risks)
  );
}

/**
 * The conditions of a rule beside its tool selection, each as one text
 * (`argument_patterns /command "rm *"`), so that "each of the earlier rule's
 * is one of the later rule's" is a set lookup, not a walk of JSON.
 */
function conditionTexts(rule: PermissionRule): string[] {
  const texts: string[] = [];
  if (rule.working_directory !== undefined)
    texts.push(`working_directory ${JSON.stringify(rule.working_directory)}`);
  for (const key of ['arguments', 'argument_patterns'] as const)
    for (const [pointer, value] of Object.entries(rule[key] ?? {}))
      texts.push(`${key} ${JSON.stringify(pointer)} ${JSON.stringify(value)}`);
  return texts;
}

interface Compared {
  readonly entry: PermissionRuleEntry;
  readonly rule: PermissionRule;
  readonly conditions: readonly string[];
  readonly conditionSet: ReadonlySet<string>;
}

/**
 * Whether `earlier` matches every call `later` matches, or may reach: it
 * states no path or URL condition (those match by verdict), and each other
 * condition it states is one of `later`'s or wider.
 */
function covers(earlier: Compared, later: Compared): boolean {
  if (earlier.rule.targets !== undefined || earlier.rule.urls !== undefined) return false;
  // A later rule with an empty list selects nothing: it is dead for another reason.
  const lists = [later.rule.tools, later.rule.tool_names, later.rule.groups, later.rule.risks];
  if (lists.some((list) => list?.length === 0)) return false;
  // The cheap conditions first: the glob questions are asked only of rules that pass them.
  return (
    earlier.conditions.every((text) => later.conditionSet.has(text)) &&
    selectsToolsOf(earlier.rule, later.rule)
  );
}

/** Whether glob `inner` matches only names some glob of `outer` matches: a sample name first, then exactly. */
function globWithin(inner: string, outer: readonly string[]): boolean {
  const sample = globShape(inner).samples[0];
  if (sample === undefined || !outer.some((glob) => matchGlob(glob, sample))) return false;
  return globIncluded(inner, outer) === true;
}

/** A permission rule that an earlier rule of its list takes every call from (the first matching rule decides). */
export const permissionRuleShadowed: LintRule = {
  id: 'permission-rule-shadowed',
  category: 'correctness',
  severity: 'warning',
  fixKind: 'none',
  docs: {
    summary:
      'A permission rule that never decides a call, because an earlier rule of its list matches every call it matches (the first matching rule decides).',
    description:
      'Permission rules (spec 003: a custom rule set, an overlay group) are read in order and the first rule that matches a call decides it, unlike approval rules where deny wins whatever the order. ' +
      'A rule placed after a wider one never decides anything: `{"verdict": "allow", "tools": ["Bash"]}` before `{"verdict": "deny", "tools": ["Bash"], "argument_patterns": {"/command": "rm *"}}` grants every `rm`. ' +
      'Put the narrower rule first, or remove it. A shadowed rule with the same verdict only repeats the earlier one, and is reported as info. Guardrails bind whatever their order and are not compared.',
    semantics:
      'The earlier rule E covers the later rule L when E states no `targets` or `urls` (a path or URL condition matches by verdict, so it is not compared), its `tools` globs hold every tool L selects (decided exactly on the globs), ' +
      "its `tool_names`, `groups` and `risks` hold L's, each of its `arguments` and `argument_patterns` entries is one of L's, and its `working_directory`, if any, is L's. An overlay's groups for one rule set are read in order as one list, as the kernel reads them. Only what is certain is reported.",
    bad: '{\n  "permission_rule_set": "team",\n  "custom_rule_sets": [{"id": "team", "rules": [\n    {"verdict": "allow", "tools": ["Bash"]},\n    {"verdict": "deny", "tools": ["Bash"], "argument_patterns": {"/command": "rm *"}, "reason": "no deletes"}\n  ]}]\n}',
    good: '{\n  "permission_rule_set": "team",\n  "custom_rule_sets": [{"id": "team", "rules": [\n    {"verdict": "deny", "tools": ["Bash"], "argument_patterns": {"/command": "rm *"}, "reason": "no deletes"},\n    {"verdict": "allow", "tools": ["Bash"]}\n  ]}]\n}',
  },
  check({ permissionRules }) {
    const reports: LintReport[] = [];
    const lists = new Map<string, PermissionRuleEntry[]>();
    // An overlay's groups for one rule set are read in order as one list.
    for (const entry of permissionRules ?? [])
      lists.set(entry.sequence, [...(lists.get(entry.sequence) ?? []), entry]);
    for (const entries of lists.values()) {
      const ordinary = entries.flatMap((entry): Compared[] => {
        if (entry.rule === null || entry.rule.guardrail === true) return [];
        const conditions = conditionTexts(entry.rule);
        return [{ entry, rule: entry.rule, conditions, conditionSet: new Set(conditions) }];
      });
      ordinary.forEach((compared, position) => {
        const found = ordinary.slice(0, position).find((candidate) => covers(candidate, compared));
        if (found === undefined) return;
        const earlier = found.entry;
        const later = compared.entry;
        const same = earlier.rule!.verdict === later.rule!.verdict;
        const earlierList = earlier.pointer.slice(0, earlier.pointer.lastIndexOf('/'));
        const elsewhere = later.pointer.startsWith(`${earlierList}/`)
          ? ''
          : ` (at ${earlier.pointer}, an earlier group for the same rule set)`;
        reports.push({
          pointer: later.pointer,
          ...(same ? { severity: 'info' as const } : {}),
          message: same
            ? `${later.rule!.verdict} rule ${later.index} repeats rule ${earlier.index}${elsewhere}: that earlier ${earlier.rule!.verdict} rule matches every call this one matches, and the first matching rule decides. Remove this one.`
            : `${later.rule!.verdict} rule ${later.index} never decides a call: the earlier ${earlier.rule!.verdict} rule ${earlier.index}${elsewhere} matches every call this one matches, and the first matching rule decides, so those calls get ${earlier.rule!.verdict}. Put this rule before rule ${earlier.index}, or narrow that one.`,
        });
      });
    }
    return reports;
  },
};
