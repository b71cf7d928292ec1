import type { LintReport, LintRule } from '../../lint-rule.js';

/** Characters that begin a piece of a text rather than a whole one: `.env`, `--force`, ` rm`. */
const FRAGMENT_START = /^[.\-\s|;&>]/;

/**
 * True for a match that looks like a fragment: it does not start with `*`,
 * and it starts like a piece of text (`.env`, `--force`) or is a literal
 * with a space in it (`git push`), which as a whole command is rare.
 */
export function looksLikeFragment(match: string): boolean {
  if (match.startsWith('*') || match === '') return false;
  if (FRAGMENT_START.test(match)) return true;
  return !match.includes('*') && !match.includes('?') && /\s/.test(match);
}

/** A match glob that looks like a fragment but, being anchored, only matches the whole text. */
export const fragmentWithoutStar: LintRule = {
  id: 'fragment-without-star',
  category: 'suspicious',
  severity: 'warning',
  fixKind: 'unsafe',
  docs: {
    summary:
      'A match that looks like a fragment (`git push`, `.env`) without a leading `*`, so it only matches the whole text.',
    description:
      'Globs are anchored at both ends: `.env` matches the path `.env` and nothing else, not `config/.env`, and `git push` matches only the exact command `git push`. ' +
      'A deny or ask written this way lets through almost everything it was meant to stop. Add a leading `*` (and a trailing one to match anywhere in the text). ' +
      'An allow rule is never reported: anchored, it grants less than it seems, and a leading `*` would grant calls nobody read (`*git status` grants `rm -rf ~; git status`). ' +
      'The quick fix adds the leading `*`; it is unsafe because the rule then matches more calls.',
    semantics:
      'Reported for a deny or ask rule whose match does not start with `*` and either starts with `.`, `-`, a space, `|`, `;`, `&` or `>`, or has no wildcard at all and contains a space.',
    bad: '[{"tool": "write|edit", "path": "path", "match": ".env", "verdict": "deny", "reason": "secrets stay local"}]',
    good: '[{"tool": "write|edit", "path": "path", "match": "*.env", "verdict": "deny", "reason": "secrets stay local"}]',
  },
  check({ rules }) {
    const reports: LintReport[] = [];
    for (const entry of rules) {
      if (entry.verdict === 'allow' || entry.match === undefined) continue;
      if (!looksLikeFragment(entry.match)) continue;
      const pointer = `${entry.pointer}/match`;
      reports.push({
        pointer,
        message:
          `match "${entry.match}" looks like a fragment but globs are anchored, so it matches only a text that is exactly that${entry.match.endsWith('*') ? ' at its start' : ''}. ` +
          `Write "*${entry.match}" to match it at the end${entry.match.endsWith('*') ? '' : `, or "*${entry.match}*" anywhere`}.`,
        fix: {
          title: `Add a leading "*": "*${entry.match}"`,
          kind: 'unsafe',
          operations: [{ op: 'set', pointer, value: `*${entry.match}` }],
        },
      });
    }
    return reports;
  },
};
