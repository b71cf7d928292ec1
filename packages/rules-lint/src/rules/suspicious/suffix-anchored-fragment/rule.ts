import type { LintReport, LintRule } from '../../lint-rule.js';

/**
 * True for a match such as `*rm -rf`: it starts with `*`, does not end with
 * one, and its last literal piece holds a space, so it reads as command
 * words that were meant to be found anywhere, yet must end the text.
 */
export function looksSuffixAnchored(match: string): boolean {
  if (!match.startsWith('*') || match.endsWith('*')) return false;
  const last = match.slice(Math.max(match.lastIndexOf('*'), match.lastIndexOf('?')) + 1);
  return /\S\s+\S/.test(last) || /\s-/.test(last);
}

/** A fragment with a leading `*` but no trailing one, so it only matches at the end of the text. */
export const suffixAnchoredFragment: LintRule = {
  id: 'suffix-anchored-fragment',
  category: 'suspicious',
  severity: 'warning',
  fixKind: 'unsafe',
  docs: {
    summary:
      'A fragment of command words with a leading `*` but no trailing one (`*rm -rf`), so it only matches at the end of the text.',
    description:
      'Globs are anchored at both ends. `*rm -rf` matches `sudo rm -rf` but not `rm -rf /tmp/x`: the text must end with the fragment. ' +
      'A deny or ask written this way misses nearly every real command it was meant to stop. Add a trailing `*` to match the words anywhere. ' +
      'An allow rule is never reported: it grants less than it seems, and a trailing `*` would grant calls nobody read. ' +
      'The quick fix adds it; it is unsafe because the rule then matches more calls.',
    semantics:
      'Reported for a deny or ask rule whose match starts with `*`, does not end with `*`, and whose literal text after its last wildcard holds two words separated by white space, or a space before a `-` (a flag).',
    bad: '[{"tool": "bash", "path": "command", "match": "*rm -rf", "verdict": "deny", "reason": "no recursive deletes"}]',
    good: '[{"tool": "bash", "path": "command", "match": "*rm -rf*", "verdict": "deny", "reason": "no recursive deletes"}]',
  },
  check({ rules }) {
    const reports: LintReport[] = [];
    for (const entry of rules) {
      if (entry.verdict === 'allow' || entry.match === undefined) continue;
      if (!looksSuffixAnchored(entry.match)) continue;
      const pointer = `${entry.pointer}/match`;
      reports.push({
        pointer,
        message:
          `match "${entry.match}" only matches a text that ends with "${entry.match.slice(1)}", so the same words followed by anything (an argument, a path) escape it. ` +
          `Write "${entry.match}*" to match them anywhere.`,
        fix: {
          title: `Add a trailing "*": "${entry.match}*"`,
          kind: 'unsafe',
          operations: [{ op: 'set', pointer, value: `${entry.match}*` }],
        },
      });
    }
    return reports;
  },
};
