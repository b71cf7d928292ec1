import { fileURLToPath } from 'node:url';

/** The repository's `docs/lint-rules.md` (same depth from `src/` and `dist/`). */
export const LINT_RULES_PAGE = fileURLToPath(
  new URL('../../../../docs/lint-rules.md', import.meta.url),
);
