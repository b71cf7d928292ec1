import { PROBLEM_CODES } from '@airlock/core';
import { POLICY_TEXT_CODES } from '../policy-text.js';
import { REQUEST_GUARD_CODES } from '../request-guard.js';
import { LINT_RULES } from '../rules/catalog.js';
import { type LintRule, RULE_CATEGORIES } from '../rules/lint-rule.js';
import { INEXACT_NUMBER } from '../source/inexact-number-findings.js';
import { describeDeclarationCode, EXAMPLE_CODES } from './declaration-codes.js';

const FIX_WORDS: Record<LintRule['fixKind'], string> = {
  safe: 'safe (every decision stays the same)',
  unsafe: 'unsafe (changes what some call gets, or rule numbers; read it before applying)',
  none: 'none',
};

/** Renders `docs/lint-rules.md` from the lint catalog. Deterministic: the same catalog gives the same text. */
export function renderLintRulesPage(rules: readonly LintRule[] = LINT_RULES): string {
  const lines: string[] = [
    '# rules-lint: lint rules',
    '',
    '<!-- Generated from packages/rules-lint/src/rules by `pnpm --filter @airlock/rules-lint run docs`. Do not edit by hand. -->',
    '',
    '`rules-lint check` reports two kinds of findings: declaration errors (the kernel would refuse the file; their codes are',
    "`@airlock/core`'s problem codes, such as `unknown_key`) and the lint rules below. Only findings of severity `error` make",
    '`check` exit 1. Each example below is a whole rule file; a test runs every one.',
    '',
    '| rule | category | severity | fix | what it finds |',
    '| --- | --- | --- | --- | --- |',
  ];
  const ordered = [...rules].sort(
    (a, b) =>
      RULE_CATEGORIES.indexOf(a.category) - RULE_CATEGORIES.indexOf(b.category) ||
      a.id.localeCompare(b.id),
  );
  for (const rule of ordered) {
    lines.push(
      `| [\`${rule.id}\`](#${rule.id}) | ${rule.category} | ${rule.severity} | ${rule.fixKind} | ${rule.docs.summary.replaceAll('|', '\\|')} |`,
    );
  }
  for (const rule of ordered) {
    lines.push('', `## ${rule.id}`, '');
    lines.push(
      `Category: ${rule.category}. Default severity: ${rule.severity}. Fix: ${FIX_WORDS[rule.fixKind]}.`,
      '',
    );
    lines.push(rule.docs.summary, '', rule.docs.description, '');
    if (rule.docs.semantics) lines.push(`**Exact semantics.** ${rule.docs.semantics}`, '');
    if (rule.docs.tools !== undefined) {
      lines.push(
        'With this tool catalog (`--tools`):',
        '',
        '```json',
        JSON.stringify(rule.docs.tools, null, 2),
        '```',
        '',
      );
    }
    lines.push(
      'Reported:',
      '',
      '```json',
      rule.docs.bad,
      '```',
      '',
      'Not reported:',
      '',
      '```json',
      rule.docs.good,
      '```',
    );
  }
  lines.push(
    '',
    '## unused-suppression',
    '',
    'Category: suppression. Severity: warning. Fix: none.',
    '',
    describeDeclarationCode('unused-suppression'),
    '',
    'A `.jsonc` file may silence lint findings on the next line with `// rules-lint-disable-next-line ID[, ID] -- reason`.',
    'A comment that silences nothing, or names something that is not a lint rule, is reported so that stale suppressions',
    'do not pile up. Delete the comment, or correct the rule id it names. Declaration errors are never silenced.',
    '',
    '## duplicate-key',
    '',
    'Category: source. Default severity: error. Fix: none.',
    '',
    'A key is written twice in the same object, as in `{"tool": "bash", "verdict": "deny", "reason": "r", "verdict": "allow"}`:',
    'a reviewer reads the first value, `JSON.parse` (and any tool that reads the file before sending it) keeps the last, so',
    'this rule allows, and the kernel refuses the file sent as written (`invalid_json` with a `duplicate_key` problem at the',
    'key, at any depth). The finding points at the later key and shows the value `JSON.parse` keeps. Keep one. The config',
    "can set its severity like a lint rule's; a comment in the file cannot silence it.",
    '',
    '## analysis-incomplete',
    '',
    'Category: analysis. Default severity: warning. Fix: none.',
    '',
    'A lint rule that decides language questions (`shadowed-allow`, `shadowed-ask`, `redundant-rule`) ran out of its work',
    'budget on this list, so some of its questions were left undecided and, never guessed, not reported: a real finding may be',
    'missing. One finding per lint rule names the rule and how many questions it left undecided, at the first rule left',
    'undecided. A crafted list can pad itself to use up the budget before a rule that matters, so CI should not pass on it:',
    'keep it a warning with `--max-warnings 0`, or set `"analysis-incomplete": "error"` in the config; it can be set like any',
    'lint rule, and silenced with `// rules-lint-disable-next-line analysis-incomplete -- reason`. Split the list or simplify its globs.',
    '',
    '## invalid_json',
    '',
    'The file is not JSON (or not JSONC, for a `.jsonc` file): `check` prints where it stops reading and exits 2, and the',
    'editor shows one error there. Nothing else is reported until the file parses.',
    '',
    '## config_invalid',
    '',
    'The nearest `rules-lint.config.json(c)` (or `--config FILE`) has an unknown key, an unknown rule id or a bad severity:',
    '`check` prints every problem on one line and exits 2, and the editor shows them as one error at the top of the file.',
    '',
    '## file_too_large',
    '',
    'The file is over 4 MiB, far more than any declaration (at most 64 KiB of JSON) needs: `check` refuses it without',
    'reading it whole and exits 2, and the editor shows one error at the top of the document and lints nothing else.',
    '',
    '## Declaration errors',
    '',
    "These come from `@airlock/core`'s validator, exactly as the kernel reports them when the declaration is sent; each is an",
    "error with a JSON pointer to the culprit. `inexact_number` comes from the kernel's reading of the JSON text itself,",
    '`input_too_deep` and `unrecognized_keys` from the guard the kernel runs',
    'on every request first, and `not_unicode` and `holds_nul` from the check on policy texts it runs before that',
    'validator. The example codes come from `rules-lint` itself: `check` reports a malformed',
    '`examples` block, and `test` also reports an example whose decision differs from `expect`.',
  );
  for (const code of [
    INEXACT_NUMBER,
    ...REQUEST_GUARD_CODES,
    ...POLICY_TEXT_CODES,
    ...PROBLEM_CODES,
    ...EXAMPLE_CODES,
  ])
    lines.push('', `### ${code}`, '', describeDeclarationCode(code));
  return `${lines.join('\n')}\n`;
}
