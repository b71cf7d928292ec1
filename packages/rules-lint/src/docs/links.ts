/**
 * Where the published lint rule docs live. SARIF `helpUri`, the driver's
 * `informationUri` and the language server's `codeDescription.href` all
 * point here; change it in this one place if the repository moves.
 */
export const LINT_RULES_DOCS_URL =
  'https://github.com/airlock/airlock/blob/main/docs/lint-rules.md';

/** The home of the linter (SARIF `informationUri`). */
export const RULES_LINT_HOME_URL =
  'https://github.com/airlock/airlock/tree/main/packages/rules-lint';

/** The docs link of one code: a lint rule's section, or the declaration errors section. */
export function docsUrlFor(code: string, isLintRule: boolean): string {
  return `${LINT_RULES_DOCS_URL}#${isLintRule ? code : 'declaration-errors'}`;
}
