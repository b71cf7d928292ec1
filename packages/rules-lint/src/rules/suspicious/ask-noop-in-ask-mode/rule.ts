import { withAliasTargets } from '../../../analysis/aliased-calls.js';
import { callsMayIntersect } from '../../../analysis/sample-calls.js';
import type { LintReport, LintRule } from '../../lint-rule.js';

/** Under mode `ask`, a model ask rule no allow rule overlaps: unmatched model calls park anyway. */
export const askNoopInAskMode: LintRule = {
  id: 'ask-noop-in-ask-mode',
  category: 'suspicious',
  severity: 'warning',
  fixKind: 'unsafe',
  docs: {
    summary:
      'Under mode `ask`, an ask rule for model calls that no allow rule overlaps: those calls park anyway.',
    description:
      'Mode `ask` parks every model call that no allow rule names, so an ask rule only matters where it overrides an allow (ask wins over allow). ' +
      'An ask rule for model calls that shares no call with any allow rule changes nothing, and suggests the list was written for mode `rules`. ' +
      'Remove it, or check the mode. The quick fix removes it; it is unsafe only because later rule numbers shift. Rules for `author` or `kernel` rows are never reported: for them an ask rule does opt the rows back in.',
    semantics:
      "Reported when the file's mode (a profile's `approval_mode`, else `ask` as the kernel runs it; `--mode`/the config's `mode` for a bare list) is `ask`, the rule's verdict is `ask` and its origin `model`, " +
      'and no allow rule of origin `model` may share a call with it (their tool globs, and when both read the same path their match globs, cannot share a text by their literal ends; rules reading different paths may always share a call). ' +
      'An ask naming an alias in `tool_aliases` also binds a call made by that name, which the allows see under the name the alias resolves to, so it is compared with the allows under that name too.',
    bad: '{\n  "approval_mode": "ask",\n  "approval_rules": [\n    {"tool": "read", "verdict": "allow"},\n    {"tool": "bash", "verdict": "ask"}\n  ]\n}',
    good: '{\n  "approval_mode": "ask",\n  "approval_rules": [\n    {"tool": "bash", "verdict": "allow"},\n    {"tool": "bash", "path": "command", "match": "*sudo*", "verdict": "ask"}\n  ]\n}',
  },
  check({ rules, mode, toolAliases }) {
    if (mode !== 'ask') return [];
    const allows = rules.filter((entry) => entry.verdict === 'allow' && entry.origin === 'model');
    const reports: LintReport[] = [];
    for (const entry of rules) {
      if (entry.verdict !== 'ask' || entry.origin !== 'model') continue;
      // An ask naming an alias also parks the calls made by it, which an allow sees resolved.
      const binding = withAliasTargets(entry, toolAliases);
      if (allows.some((allow) => callsMayIntersect(binding, allow))) continue;
      reports.push({
        pointer: `${entry.pointer}/verdict`,
        message:
          `ask rule ${entry.index} changes nothing under mode ask: every model call no allow rule names parks anyway, and no allow rule shares a call with it. ` +
          'Remove it, or check that the list is meant for mode ask.',
        fix: {
          title: `Remove rule ${entry.index}`,
          kind: 'unsafe',
          operations: [{ op: 'remove', pointer: entry.pointer }],
        },
      });
    }
    return reports;
  },
};
