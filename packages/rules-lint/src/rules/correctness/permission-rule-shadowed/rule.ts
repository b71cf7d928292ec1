import { matchGlob, type PermissionRule } from '@airlock/core';
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
    later.tools?.every((glob) => globIncluded(glob, globs) === true) === true ||
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

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Whether each argument condition of `earlier` is one of `later`'s. */
function argumentsOf(
  earlier: Readonly<Record<string, unknown>> | undefined,
  later: Readonly<Record<string, unknown>> | undefined,
): boolean {
  if (earlier === undefined) return true;
  return Object.entries(earlier).every(
    ([pointer, value]) =>
      later !== undefined && Object.hasOwn(later, pointer) && sameJson(later[pointer], value),
  );
}

/**
 * Whether `earlier` matches every call `later` matches, or may reach: it
 * states no path or URL condition (those match by verdict), and each other
 * condition it states is one of `later`'s or wider.
 */
function covers(earlier: PermissionRule, later: PermissionRule): boolean {
  if (earlier.targets !== undefined || earlier.urls !== undefined) return false;
  // A later rule with an empty list selects nothing: it is dead for another reason.
  const lists = [later.tools, later.tool_names, later.groups, later.risks];
  if (lists.some((list) => list?.length === 0)) return false;
  return (
    selectsToolsOf(earlier, later) &&
    argumentsOf(earlier.arguments, later.arguments) &&
    argumentsOf(earlier.argument_patterns, later.argument_patterns) &&
    (earlier.working_directory === undefined ||
      earlier.working_directory === later.working_directory)
  );
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
      const ordinary = entries.filter(
        (entry) => entry.rule !== null && entry.rule.guardrail !== true,
      );
      ordinary.forEach((later, position) => {
        const earlier = ordinary
          .slice(0, position)
          .find((candidate) => covers(candidate.rule!, later.rule!));
        if (earlier === undefined) return;
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
