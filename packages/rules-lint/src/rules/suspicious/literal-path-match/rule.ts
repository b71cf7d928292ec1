import type { LintReport, LintRule } from '../../lint-rule.js';
import { looksLikeFragment } from '../fragment-without-star/rule.js';

/** Last path segments that name a file system path rather than free text. */
const PATH_LIKE =
  /(^|_|-)(path|paths|file|files|filename|file_path|filepath|dir|directory|folder|target|dest|destination|src|source)$/i;

/**
 * True for a match with no wildcard, no `/`, on a path-like field: a bare
 * file name such as `id_rsa`, which matches only that exact relative path.
 */
export function looksLikeBareName(path: readonly string[], match: string): boolean {
  const field = path[path.length - 1];
  if (field === undefined || !PATH_LIKE.test(field)) return false;
  if (match === '' || /[*?/\\]/.test(match) || match.startsWith('~')) return false;
  // fragment-without-star already speaks about `.env` and friends.
  return !looksLikeFragment(match);
}

/** A literal file name on a path field, where a fragment (`*id_rsa`) was surely meant. */
export const literalPathMatch: LintRule = {
  id: 'literal-path-match',
  category: 'suspicious',
  severity: 'warning',
  fixKind: 'unsafe',
  docs: {
    summary:
      'A match with no wildcard on a path-like field (`"match": "id_rsa"` on `path`), which only matches that exact relative path.',
    description:
      'Globs are anchored and tools usually receive absolute or nested paths: `id_rsa` on `path` matches the text `id_rsa` and nothing else, not `/home/me/.ssh/id_rsa`. ' +
      'A deny or ask written this way protects nothing. Add a leading `*` (`*id_rsa`, or `*/id_rsa` for the whole name). ' +
      'An allow rule is never reported: it grants that one path only, and a leading `*` would grant every path ending so. ' +
      'The quick fix adds the leading `*`; it is unsafe because the rule then matches more calls.',
    semantics:
      'Reported for a deny or ask rule when the last segment of `path` names a path (`path`, `file`, `file_path`, `filename`, `dir`, `directory`, `folder`, `target`, `dest`, `destination`, `src`, `source`, alone or after `_` or `-`), ' +
      'and the match is non-empty with no `*`, `?`, `/` or `\\\\`, does not start with `~`, and is not already reported by `fragment-without-star`.',
    bad: '[{"tool": "read|write", "path": "file_path", "match": "id_rsa", "verdict": "deny", "reason": "private keys stay private"}]',
    good: '[{"tool": "read|write", "path": "file_path", "match": "*id_rsa", "verdict": "deny", "reason": "private keys stay private"}]',
  },
  check({ rules }) {
    const reports: LintReport[] = [];
    for (const entry of rules) {
      if (entry.verdict === 'allow' || entry.path === null || entry.match === undefined) continue;
      if (!looksLikeBareName(entry.path, entry.match)) continue;
      const pointer = `${entry.pointer}/match`;
      reports.push({
        pointer,
        message:
          `match "${entry.match}" has no wildcard, so on the path field "${entry.path.join('.')}" it matches only the exact relative path "${entry.match}", not "/any/where/${entry.match}". ` +
          `Write "*${entry.match}" (or "*/${entry.match}") to match the name wherever it lives.`,
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
