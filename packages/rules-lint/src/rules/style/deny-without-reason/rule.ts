import type { LintReport, LintRule } from '../../lint-rule.js';

/** A deny rule without a reason for the model to read. */
export const denyWithoutReason: LintRule = {
  id: 'deny-without-reason',
  category: 'style',
  severity: 'info',
  fixKind: 'none',
  docs: {
    summary: 'A deny rule with no reason: the model reads only "denied by approval rule N".',
    description:
      'A refusal is data the model reads next round. Without a reason it learns only the rule number, cannot tell what to do instead, and often retries the same call ' +
      'with small variations. Add a `reason` that says why and what to do instead, in under 256 bytes.',
    bad: '[{"tool": "bash", "path": "command", "match": "*git push*--force*", "verdict": "deny"}]',
    good: '[{"tool": "bash", "path": "command", "match": "*git push*--force*", "verdict": "deny", "reason": "force push rewrites shared history; push a new branch instead"}]',
  },
  check({ rules }) {
    const reports: LintReport[] = [];
    for (const entry of rules) {
      if (entry.verdict !== 'deny' || (entry.reason !== undefined && entry.reason.trim() !== ''))
        continue;
      reports.push({
        pointer: entry.pointer,
        message:
          `deny rule ${entry.index} has no reason, so the model reads only "denied by approval rule ${entry.index}" and may retry blindly. ` +
          'Add a "reason" saying why and what to do instead.',
      });
    }
    return reports;
  },
};
