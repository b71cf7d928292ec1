import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { lintFixture, lintWith } from '../../testing.js';
import { askNoopInAskMode } from './rule.js';

const folder = fileURLToPath(new URL('.', import.meta.url));

describe('ask-noop-in-ask-mode', () => {
  it('reports model ask rules that no allow overlaps under mode ask', () => {
    const findings = lintFixture(askNoopInAskMode, folder, 'bad.json');
    expect(findings.map((finding) => finding.pointer)).toEqual([
      '/approval_rules/1/verdict',
      '/approval_rules/3/verdict',
    ]);
  });

  it('is silent where an ask overrides an allow, for author rows, and under other modes', () => {
    expect(lintFixture(askNoopInAskMode, folder, 'good.json')).toEqual([]);
    const underRules = readFileSync(join(folder, 'fixtures/bad.json'), 'utf8').replace(
      '"ask",\n  "approval_rules"',
      '"rules",\n  "approval_rules"',
    );
    expect(lintWith(askNoopInAskMode, underRules)).toEqual([]);
  });
});
