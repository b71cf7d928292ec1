import { describe, expect, it } from 'vitest';
import { lintText } from '../lint.js';
import { applyFix } from './fix-edits.js';

function fixAll(fileName: string, text: string, code: string): string {
  const outcome = lintText(fileName, text);
  if (!outcome.ok) throw new Error(outcome.message);
  const finding = outcome.findings.find((candidate) => candidate.code === code && candidate.fix);
  if (!finding?.fix) throw new Error(`no fix for ${code}`);
  return applyFix(text, outcome.document.root, finding.fix);
}

describe('fixes as edits', () => {
  it('sets a value in place, keeping comments and layout', () => {
    const text =
      '// keep me\n[\n  {"tool": "write", "path": "path", "match": ".env", "verdict": "ask"} // and me\n]\n';
    expect(fixAll('rules.jsonc', text, 'fragment-without-star')).toBe(
      '// keep me\n[\n  {"tool": "write", "path": "path", "match": "*.env", "verdict": "ask"} // and me\n]\n',
    );
  });

  it('removes an array element with its comma, leaving valid JSON', () => {
    const text =
      '[\n  {"tool": "bash", "verdict": "allow", "origin": "author"},\n  {"tool": "write", "verdict": "ask"}\n]\n';
    const fixed = fixAll('rules.json', text, 'origin-allow-noop');
    expect(JSON.parse(fixed)).toEqual([{ tool: 'write', verdict: 'ask' }]);
  });

  it('trims a long reason to what the kernel keeps, after which the rule is silent', () => {
    const text = JSON.stringify([{ tool: 'bash', verdict: 'deny', reason: 'é'.repeat(200) }]);
    const fixed = fixAll('rules.json', text, 'reason-too-long');
    expect(JSON.parse(fixed)[0].reason).toBe('é'.repeat(128));
    const again = lintText('rules.json', fixed);
    expect(
      again.ok && again.findings.filter((finding) => finding.code === 'reason-too-long'),
    ).toEqual([]);
  });
});
