import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROBLEM_CODES } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { POLICY_TEXT_CODES } from '../policy-text.js';
import { REQUEST_GUARD_CODES } from '../request-guard.js';
import { LINT_RULES } from '../rules/catalog.js';
import { runCaptured } from '../testing/capture.js';
import { EXAMPLE_CODES } from './declaration-codes.js';
import { docsUrlFor, LINT_RULES_DOCS_URL, RULES_LINT_HOME_URL } from './links.js';

const repoRoot = new URL('../../../../', import.meta.url);
const page = readFileSync(new URL('docs/lint-rules.md', repoRoot), 'utf8');

/** GitHub's heading anchors: lower case, punctuation other than `-` and `_` dropped, spaces as `-`. */
function githubSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Each anchor of the page with the heading text it belongs to. */
const anchors = new Map(
  page
    .split('\n')
    .filter((line) => /^#{1,6} /.test(line))
    .map((line) => {
      const text = line.replace(/^#+ /, '');
      return [githubSlug(text), text] as const;
    }),
);

function manifest(dir: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`packages/${dir}/package.json`, repoRoot), 'utf8'));
}

/** Resolves a docs link against docs/lint-rules.md: the heading it lands on, or undefined. */
function resolveLink(url: string): string | undefined {
  const [base, anchor] = url.split('#');
  if (base !== LINT_RULES_DOCS_URL || anchor === undefined) return undefined;
  return anchors.get(anchor);
}

const EVERY_CODE = [
  ...LINT_RULES.map((rule) => rule.id),
  ...REQUEST_GUARD_CODES,
  ...POLICY_TEXT_CODES,
  ...PROBLEM_CODES,
  ...EXAMPLE_CODES,
  'unused-suppression',
  'invalid_json',
  'config_invalid',
];

describe('docs links', () => {
  it('every rule and code links to a section of its own in docs/lint-rules.md', () => {
    const unresolved = EVERY_CODE.filter((code) => resolveLink(docsUrlFor(code)) !== code);
    expect(unresolved).toEqual([]);
  });

  it('every link in a SARIF log and in check --format json resolves to its own section', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rules-lint-links-'));
    writeFileSync(
      join(dir, 'agent.jsonc'),
      '[\n  // rules-lint-disable-next-line deny-without-reason -- nothing to silence here\n  {"tool": "read", "verdict": "allow"},\n  {"tool": "bash", "verdict": "deny"},\n  {"tool": "", "verdict": "maybe"}\n]\n',
    );
    const run = await runCaptured(['check', '--format', 'sarif', 'agent.jsonc'], dir);
    const log = JSON.parse(run.stdout);
    const rules: { id: string; helpUri: string }[] = log.runs[0].tool.driver.rules;
    const seen = new Set(log.runs[0].results.map((result: { ruleId: string }) => result.ruleId));
    expect([...seen]).toEqual(
      expect.arrayContaining(['unused-suppression', 'deny-without-reason', 'verdict_invalid']),
    );
    for (const rule of rules) expect(resolveLink(rule.helpUri), rule.id).toBe(rule.id);
    expect(log.runs[0].tool.driver.informationUri).toBe(manifest('rules-lint').homepage);
  });

  it('links derive from the repository and homepage rules-lint declares in package.json', () => {
    const { repository, homepage } = manifest('rules-lint') as {
      repository: { url: string };
      homepage: string;
    };
    const web = repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
    expect(LINT_RULES_DOCS_URL).toBe(`${web}/blob/main/docs/lint-rules.md`);
    expect(RULES_LINT_HOME_URL).toBe(homepage);
  });

  it('every published package declares repository (with its folder), homepage and bugs', () => {
    const published = readdirSync(new URL('packages/', repoRoot)).filter(
      (dir) => manifest(dir).private !== true,
    );
    expect(published.length).toBeGreaterThanOrEqual(6);
    for (const dir of published) {
      const { repository, homepage, bugs } = manifest(dir) as {
        repository?: { url?: string; directory?: string };
        homepage?: string;
        bugs?: { url?: string };
      };
      expect(repository?.url, dir).toMatch(/^git\+https:\/\/github\.com\/[^/]+\/[^/]+\.git$/);
      expect(repository?.directory, dir).toBe(`packages/${dir}`);
      expect(homepage, dir).toMatch(/^https:\/\//);
      expect(bugs?.url, dir).toMatch(/^https:\/\//);
    }
  });
});
