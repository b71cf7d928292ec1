import type { LintReport, LintRule } from '../../lint-rule.js';

/** An allow rule addressing author or kernel rows, which their origin grants anyway. */
export const originAllowNoop: LintRule = {
  id: 'origin-allow-noop',
  category: 'suspicious',
  severity: 'warning',
  fixKind: 'unsafe',
  docs: {
    summary:
      'An allow rule naming origin `author` or `kernel`: those rows are granted by their origin anyway.',
    description:
      'A row a person appended (author) or the kernel planted (kernel) is granted by its origin under every mode; rules that name its origin can only opt it back in, ' +
      'with `ask` (park it for a person) or `deny` (refuse it). An allow rule for those origins changes no decision, and usually means the author wanted model calls ' +
      '(drop `origin`) or wanted a person to look (use `ask`). The quick fix removes the rule; it is unsafe only because later rule numbers shift.',
    bad: '[{"tool": "bash", "verdict": "allow", "origin": "author"}]',
    good: '[{"tool": "bash", "verdict": "ask", "origin": "author"}]',
  },
  check({ rules }) {
    const reports: LintReport[] = [];
    for (const entry of rules) {
      if (entry.verdict !== 'allow' || entry.origin === 'model') continue;
      reports.push({
        pointer: `${entry.pointer}/origin`,
        message:
          `allow rule ${entry.index} for ${entry.origin} rows changes nothing: ${entry.origin} rows are granted by their origin under every mode. ` +
          `Remove it, drop "origin" if it was meant for model calls, or use "ask" to have a person approve ${entry.origin} rows.`,
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
