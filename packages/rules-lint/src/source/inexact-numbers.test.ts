import { describe, expect, it } from 'vitest';
import { lintText } from '../lint.js';
import { INEXACT_NUMBER } from './inexact-number-findings.js';

function inexact(text: string) {
  const outcome = lintText('agent.json', text);
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome.findings.filter((finding) => finding.code === INEXACT_NUMBER);
}

describe('inexact_number', () => {
  it('flags an integer past 2^53 at the number, with the digits a reader would take', () => {
    const found = inexact(
      '{"approval_mode": "rules", "approval_rules": [],\n "tool_manifest": [{"name": "e", "risk_traits": [], "input_schema": {"maximum": -9007199254740993}}]}',
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      source: 'declaration',
      severity: 'error',
      pointer: '/tool_manifest/0/input_schema/maximum',
      location: { line: 2, column: 81, length: 17 },
    });
    expect(found[0]!.message).toContain('read as -9007199254740992');
  });

  it('flags a number past the largest double, anywhere in the file, and nothing a reader keeps', () => {
    expect(inexact('[{"tool": "bash", "verdict": "allow", "x": [1, [1e309]]}]')).toMatchObject([
      { pointer: '/0/x/1/0' },
    ]);
    for (const fine of ['9007199254740991', '-1.5e300', '12345678901234567890.5', '1e21', '0']) {
      expect(inexact(`{"approval_mode": "ask", "n": ${fine}}`)).toEqual([]);
    }
  });
});
