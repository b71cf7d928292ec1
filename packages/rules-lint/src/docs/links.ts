import { readFileSync } from 'node:fs';

/** The fields of this package's manifest the links come from. */
interface Manifest {
  readonly homepage?: unknown;
  readonly repository?: unknown;
}

// The manifest sits two folders up from both src/docs and dist/docs, and ships in every tarball.
const manifest = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as Manifest;

/**
 * The repository's web address from `repository` in package.json
 * (`git+https://github.com/OWNER/NAME.git` becomes `https://github.com/OWNER/NAME`).
 * Throws when the manifest declares none: a link to nowhere is worse than a failed build.
 */
export function repositoryWebUrl(repository: unknown): string {
  const url =
    typeof repository === 'string'
      ? repository
      : typeof repository === 'object' && repository !== null
        ? (repository as { url?: unknown }).url
        : undefined;
  if (typeof url !== 'string' || url === '')
    throw new Error('@airlock/rules-lint: package.json declares no repository url');
  return url
    .replace(/^git\+/, '')
    .replace(/\.git$/, '')
    .replace(/^git:\/\//, 'https://');
}

/** The home of the linter (SARIF `informationUri`): `homepage` in package.json. */
export const RULES_LINT_HOME_URL: string =
  typeof manifest.homepage === 'string'
    ? manifest.homepage
    : `${repositoryWebUrl(manifest.repository)}#readme`;

/**
 * Where the published lint rule docs live, derived from `repository` in
 * package.json. SARIF `helpUri`, the driver's `informationUri` and the
 * language server's `codeDescription.href` all point here.
 */
export const LINT_RULES_DOCS_URL = `${repositoryWebUrl(manifest.repository)}/blob/main/docs/lint-rules.md`;

/**
 * The docs link of one code: its own section of docs/lint-rules.md (a lint
 * rule, a declaration code, an example code, `unused-suppression`,
 * `invalid_json` or `config_invalid`). A test resolves every one.
 */
export function docsUrlFor(code: string): string {
  return `${LINT_RULES_DOCS_URL}#${code.toLowerCase()}`;
}
