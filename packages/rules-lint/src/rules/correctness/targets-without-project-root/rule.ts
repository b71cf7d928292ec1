import type { LintReport, LintRule } from '../../lint-rule.js';

const SET_ROOT =
  'Set "project_root" to the absolute directory of the project (the one the agent runs in, or one above it).';

/**
 * A permission rule over path targets in a profile that sets no
 * `project_root`: core cannot place an absolute path against a rooted
 * pattern, so at run time a deny or ask asks of every such call, and an
 * allow never grants one.
 */
export const targetsWithoutProjectRoot: LintRule = {
  id: 'targets-without-project-root',
  category: 'correctness',
  severity: 'warning',
  fixKind: 'none',
  docs: {
    summary:
      'A permission rule with `targets` in a profile that sets no `project_root`: an absolute path in a call cannot be placed, so such calls ask.',
    description:
      "A target pattern (`secrets/**`) is rooted at the project, and the kernel places a call's path against it through the profile's `project_root`. " +
      "With none set, an absolute path (Claude Code's Read, Write and Edit name every file absolutely) cannot be placed: under a deny or ask target rule " +
      'every such call asks a person, whatever file it names (a tool that deletes what it names is refused), and an allow target rule never grants one (the call goes on to the later rules). ' +
      '`airlock hooks doctor` warns of the same. Set `project_root` to the absolute directory of the project. ' +
      'The linter cannot know that directory, so `check --fix` leaves it alone; in an editor the language server offers a quick fix (unsafe, not preferred) that sets it to the workspace folder holding the file: check that it is where the agent runs. ' +
      'The rule reads a profile file only: an overlay document or a rule set file on its own does not say which profile it is used with.',
    bad: '{\n  "permission_rule_set": "team",\n  "custom_rule_sets": [{"id": "team", "rules": [{"verdict": "deny", "targets": ["secrets/**"], "reason": "secrets stay local"}]}]\n}',
    good: '{\n  "project_root": "/home/dev/app",\n  "permission_rule_set": "team",\n  "custom_rule_sets": [{"id": "team", "rules": [{"verdict": "deny", "targets": ["secrets/**"], "reason": "secrets stay local"}]}]\n}',
  },
  check({ permissionRules, projectRoot }) {
    if (projectRoot !== null) return [];
    const reports: LintReport[] = [];
    for (const entry of permissionRules ?? []) {
      const targets = entry.rule?.targets;
      if (entry.rule === null || targets === undefined || targets.length === 0) continue;
      const { verdict } = entry.rule;
      const named = targets.slice(0, 3).join(', ') + (targets.length > 3 ? ', …' : '');
      const unplaced =
        "this profile sets no project_root, so an absolute path in a call (Claude Code's Read, Write and Edit name every file absolutely) cannot be placed against these rooted patterns";
      const atRunTime =
        verdict === 'allow'
          ? 'this rule never grants such a call: it goes on to the later rules, and asks under any deny or ask target rule'
          : 'every such call asks a person, whatever file it names (a tool that deletes what it names is refused), instead of being decided by this rule';
      reports.push({
        pointer: `${entry.pointer}/targets`,
        part: 'key',
        message: `${verdict} rule ${entry.index} names path targets (${named}), but ${unplaced}: at run time ${atRunTime}. ${SET_ROOT}`,
      });
    }
    return reports;
  },
};
