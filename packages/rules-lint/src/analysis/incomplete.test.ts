import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lintText } from '../lint.js';
import { runCaptured } from '../testing/capture.js';
import { ANALYSIS_INCOMPLETE, UndecidedTally } from './incomplete.js';
import type { RuleEntry } from './rule-entry.js';
import { WorkBudget } from './work-budget.js';

/**
 * A list padded with allow rules whose globs make costly questions, so the
 * shadowed-allow budget runs out before its plainly shadowed allow rule at
 * the end (`zz`); found by an audit.
 */
const PADDED = readFileSync(join(import.meta.dirname, 'fixtures', 'budget-evasion.json'), 'utf8');
const paddedList = () => PADDED;

describe('analysis-incomplete', () => {
  it('counts only the questions asked once the budget is spent', () => {
    const budget = new WorkBudget(5);
    const tally = new UndecidedTally('shadowed-allow', budget, 'allow rules');
    const entry = (index: number) => ({ index, pointer: `/${index}` }) as RuleEntry;
    tally.note(entry(0), false);
    expect(tally.report()).toBeUndefined();
    budget.spend(6);
    tally.note(entry(1), true);
    tally.note(entry(2), false);
    tally.note(entry(3), false);
    expect(tally.report()).toMatchObject({
      code: ANALYSIS_INCOMPLETE,
      severity: 'warning',
      pointer: '/2',
    });
    expect(tally.report()?.message).toMatch(/^shadowed-allow left 2 of 4 allow rules undecided/);
  });

  it('tells the user when padding uses up the budget before a shadowed allow rule', () => {
    const outcome = lintText('padded.json', paddedList());
    if (!outcome.ok) throw new Error(outcome.message);
    const incomplete = outcome.findings.filter((finding) => finding.code === ANALYSIS_INCOMPLETE);
    expect(incomplete.map((finding) => finding.message.split(' ')[0])).toContain('shadowed-allow');
    expect(incomplete.every((finding) => finding.severity === 'warning')).toBe(true);
  }, 20_000);

  it('fails CI with --max-warnings 0, and is configurable like a lint rule', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rules-lint-incomplete-'));
    writeFileSync(join(dir, 'padded.json'), paddedList());
    const run = await runCaptured(
      ['check', '--format', 'json', '--max-warnings', '0', 'padded.json'],
      dir,
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(ANALYSIS_INCOMPLETE);
    writeFileSync(
      join(dir, 'rules-lint.config.json'),
      JSON.stringify({ rules: { 'analysis-incomplete': 'error', 'redundant-rule': 'off' } }),
    );
    const strict = await runCaptured(['check', '--format', 'json', 'padded.json'], dir);
    expect(strict.code).toBe(1);
    const findings = JSON.parse(strict.stdout).files[0].findings;
    expect(
      findings.find((finding: { code: string }) => finding.code === ANALYSIS_INCOMPLETE),
    ).toMatchObject({
      severity: 'error',
    });
  }, 30_000);
});
