import { describe, expect, it } from 'vitest';
import { lintText } from '../lint.js';

function findings(fileName: string, text: string): string[][] {
  const outcome = lintText(fileName, text);
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome.findings.map((finding) => [
    String(finding.location.line),
    finding.code,
    finding.severity,
  ]);
}

describe('rules-lint-disable-next-line', () => {
  it('silences the named rule on the next line only, and keeps other findings', () => {
    const text = [
      '[',
      '  // rules-lint-disable-next-line fragment-without-star -- the exact file name is meant',
      '  {"tool": "write", "path": "path", "match": ".env", "verdict": "deny", "reason": "r"},',
      '  {"tool": "edit", "path": "path", "match": ".env", "verdict": "deny", "reason": "r"},',
      '  /* rules-lint-disable-next-line deny-without-reason, fragment-without-star */',
      '  {"tool": "bash", "path": "command", "match": "-rf", "verdict": "deny"}',
      ']',
    ].join('\n');
    expect(findings('rules.jsonc', text)).toEqual([['4', 'fragment-without-star', 'warning']]);
  });

  it('reports a suppression that silences nothing, or names what is not a lint rule', () => {
    const text = [
      '[',
      '  // rules-lint-disable-next-line redundant-rule -- stale',
      '  {"tool": "bash", "verdict": "allow"},',
      '  // rules-lint-disable-next-line verdict_invalid',
      '  {"tool": "read", "verdict": "maybe"},',
      '  // rules-lint-disable-next-line',
      '  {"tool": "grep", "verdict": "allow"}',
      ']',
    ].join('\n');
    const outcome = lintText('rules.jsonc', text);
    if (!outcome.ok) throw new Error(outcome.message);
    const unused = outcome.findings.filter((finding) => finding.code === 'unused-suppression');
    expect(unused.map((finding) => [finding.location.line, finding.severity])).toEqual([
      [2, 'warning'],
      [4, 'warning'],
      [6, 'warning'],
    ]);
    expect(unused[0]?.message).toContain(
      'silences nothing: no redundant-rule finding starts on line 3',
    );
    expect(unused[1]?.message).toContain('"verdict_invalid", which is not a lint rule');
    expect(unused[2]?.message).toContain('names no lint rule');
    // The declaration error stays: the kernel refuses the file whatever a comment says.
    expect(outcome.findings.some((finding) => finding.code === 'verdict_invalid')).toBe(true);
  });

  it('is read only in .jsonc files (plain JSON has no comments)', () => {
    expect(findings('rules.json', '[{"tool": "bash", "verdict": "deny"}]')).toEqual([
      ['1', 'deny-without-reason', 'info'],
    ]);
  });
});
