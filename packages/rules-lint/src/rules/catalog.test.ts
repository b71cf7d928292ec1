import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LINT_RULES_PAGE } from '../docs/paths.js';
import { renderLintRulesPage } from '../docs/render-lint-rules.js';
import { LINT_RULES } from './catalog.js';
import { RULE_CATEGORIES } from './lint-rule.js';
import { lintWith } from './testing.js';

const rulesFolder = fileURLToPath(new URL('.', import.meta.url));

function ruleFolders(): { category: string; id: string; path: string }[] {
  const found: { category: string; id: string; path: string }[] = [];
  for (const category of readdirSync(rulesFolder)) {
    const categoryPath = join(rulesFolder, category);
    if (!statSync(categoryPath).isDirectory()) continue;
    for (const id of readdirSync(categoryPath))
      found.push({ category, id, path: join(categoryPath, id) });
  }
  return found;
}

describe('the lint catalog', () => {
  const folders = ruleFolders();

  it('has one folder per rule, each with rule.ts, rule.test.ts and bad and good fixtures', () => {
    expect(folders.map((folder) => folder.id).sort()).toEqual(
      LINT_RULES.map((rule) => rule.id).sort(),
    );
    for (const folder of folders) {
      expect(RULE_CATEGORIES as readonly string[], folder.path).toContain(folder.category);
      expect(existsSync(join(folder.path, 'rule.ts')), `${folder.id}/rule.ts`).toBe(true);
      expect(existsSync(join(folder.path, 'rule.test.ts')), `${folder.id}/rule.test.ts`).toBe(true);
      const fixtures = existsSync(join(folder.path, 'fixtures'))
        ? readdirSync(join(folder.path, 'fixtures'))
        : [];
      expect(fixtures, `${folder.id}/fixtures`).toContain('bad.json');
      expect(fixtures, `${folder.id}/fixtures`).toContain('good.json');
    }
  });

  it.each(LINT_RULES.map((rule) => [rule.id, rule] as const))(
    '%s is documented and sits in its category folder',
    (id, rule) => {
      expect(id).toMatch(/^[a-z]+(-[a-z]+)*$/);
      expect(folders.find((folder) => folder.id === id)?.category).toBe(rule.category);
      expect(rule.docs.summary.length).toBeGreaterThan(20);
      expect(rule.docs.description.length).toBeGreaterThan(100);
      expect(['error', 'warning', 'info']).toContain(rule.severity);
    },
  );

  it.each(LINT_RULES.map((rule) => [rule.id, rule] as const))(
    '%s: the docs bad example is reported, the good one is not',
    (_id, rule) => {
      const options = rule.docs.tools === undefined ? {} : { tools: rule.docs.tools };
      expect(lintWith(rule, rule.docs.bad, options).length).toBeGreaterThan(0);
      expect(lintWith(rule, rule.docs.good, options)).toEqual([]);
    },
  );

  it('has a fix on findings exactly when the rule declares a fix kind', () => {
    for (const rule of LINT_RULES) {
      const options = rule.docs.tools === undefined ? {} : { tools: rule.docs.tools };
      for (const finding of lintWith(rule, rule.docs.bad, options)) {
        expect(finding.fix?.kind ?? 'none', rule.id).toBe(rule.fixKind);
      }
    }
  });

  it('docs/lint-rules.md is the page generated from the catalog (run `pnpm --filter @airlock/rules-lint run docs`)', () => {
    expect(readFileSync(LINT_RULES_PAGE, 'utf8')).toBe(renderLintRulesPage());
  });
});
