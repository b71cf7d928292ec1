import { describe, expect, it } from 'vitest';
import { lintText } from './lint.js';
import { readRuleFile } from './rule-file.js';

describe('readRuleFile on a "__proto__" key', () => {
  it('keeps a top-level "__proto__" as a key and reports it as the kernel does', () => {
    const text =
      '{"__proto__":{"approval_mode":"bypass"},"approval_rules":[{"tool":"bash","verdict":"allow"}]}';
    const file = readRuleFile(JSON.parse(text));
    expect(file.problems.map((problem) => problem.pointer)).toEqual(['/__proto__']);
    expect(file.policy).toBeUndefined();
    const outcome = lintText('agent.json', text);
    if (!outcome.ok) throw new Error(outcome.message);
    expect(outcome.findings.map((finding) => [finding.code, finding.pointer])).toEqual([
      [file.problems[0]?.code, '/__proto__'],
    ]);
  });

  it('keeps a "__proto__" alias as data', () => {
    const file = readRuleFile(
      JSON.parse('{"tool_aliases":{"__proto__":"bash"},"approval_rules":[]}'),
    );
    expect(Object.keys(file.toolAliases)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(file.toolAliases)).toBe(Object.prototype);
  });
});
