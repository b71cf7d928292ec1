/** Writes docs/lint-rules.md from the lint catalog. Run after changing a rule's docs. */
import { writeFileSync } from 'node:fs';
import { LINT_RULES_PAGE } from '../docs/paths.js';
import { renderLintRulesPage } from '../docs/render-lint-rules.js';

writeFileSync(LINT_RULES_PAGE, renderLintRulesPage());
process.stdout.write(`wrote ${LINT_RULES_PAGE}\n`);
