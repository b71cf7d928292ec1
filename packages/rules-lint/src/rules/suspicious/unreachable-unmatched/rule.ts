import type { RuleEntry } from '../../../analysis/rule-entry.js';
import type { LintReport, LintRule } from '../../lint-rule.js';

function isCatchAllAllow(entry: RuleEntry): boolean {
  return (
    entry.verdict === 'allow' &&
    entry.origin === 'model' &&
    entry.path === null &&
    entry.alternatives.some((glob) => /^\*+$/.test(glob))
  );
}

/** Rules whose place or verdict suggests an effect on unmatched calls that they do not have. */
export const unreachableUnmatched: LintRule = {
  id: 'unreachable-unmatched',
  category: 'suspicious',
  severity: 'warning',
  fixKind: 'none',
  docs: {
    summary:
      'A catch-all allow that is not last, or allow and ask rules for model calls under bypass, where they do nothing.',
    description:
      'Rule order never matters: the kernel collects every matching rule and deny wins, then ask, then allow. A `{"tool": "*", "verdict": "allow"}` written before other ' +
      'rules reads like a fallthrough that swallows what follows, which it is not; put it last, where readers expect "everything else". Under `bypass`, a model call ' +
      'that no deny rule matches is granted by the mode, so allow and ask rules addressing model calls change nothing; keep deny rules, or choose `ask` or `rules` if ' +
      'they were meant to count.',
    bad: '{\n  "approval_mode": "rules",\n  "approval_rules": [\n    {"tool": "*", "verdict": "allow"},\n    {"tool": "bash", "verdict": "ask"}\n  ]\n}',
    good: '{\n  "approval_mode": "rules",\n  "approval_rules": [\n    {"tool": "bash", "verdict": "ask"},\n    {"tool": "*", "verdict": "allow"}\n  ]\n}',
  },
  check({ rules, mode, listLength }) {
    const reports: LintReport[] = [];
    for (const entry of rules) {
      if (mode === 'bypass' && entry.origin === 'model' && entry.verdict !== 'deny') {
        reports.push({
          pointer: `${entry.pointer}/verdict`,
          message:
            `under bypass, ${entry.verdict} rule ${entry.index} changes nothing: a model call no deny rule matches is granted by the mode. ` +
            'Remove it, or choose approval_mode ask or rules if it was meant to count.',
        });
      } else if (isCatchAllAllow(entry) && entry.index !== listLength - 1) {
        reports.push({
          pointer: entry.pointer,
          message:
            `rule ${entry.index} allows every tool but is not last; order does not matter (deny and ask still win), ` +
            'but readers take an early catch-all for a fallthrough. Move it to the end of the list.',
        });
      }
    }
    return reports;
  },
};
