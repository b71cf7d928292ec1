import { describe, expect, it } from 'vitest';
import { lintText } from '../lint.js';
import { parseDocument } from '../source/document.js';
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

describe('removal edits are minimal', () => {
  const remove = (text: string, pointer: string) => {
    const outcome = lintText('rules.jsonc', text);
    if (!outcome.ok) throw new Error(outcome.message);
    return applyFix(text, outcome.document.root, {
      title: 'remove',
      kind: 'unsafe',
      operations: [{ op: 'remove', pointer }],
    });
  };
  const list = [
    '[',
    '  // first: reads',
    '  {"tool": "read", "verdict": "allow"}, // why read',
    '  // second: bash',
    '  {"tool":"bash",   "verdict":"allow"},',
    '  // third: grep',
    '  {"tool": "grep", "verdict": "allow"}',
    ']',
    '',
  ].join('\n');

  it('removes a middle rule with its own lines, keeping every other comment and layout byte for byte', () => {
    expect(remove(list, '/1')).toBe(list.replace('  {"tool":"bash",   "verdict":"allow"},\n', ''));
  });

  it('removes the last rule and only the comma before it, keeping the previous comment', () => {
    const fixed = remove(list, '/2');
    expect(fixed).toBe(
      list
        .replace('"verdict":"allow"},\n  // third', '"verdict":"allow"}\n  // third')
        .replace('  {"tool": "grep", "verdict": "allow"}\n', ''),
    );
    expect(remove(fixed, '/0')).toContain(
      '// first: reads\n  // second: bash\n  {"tool":"bash",   "verdict":"allow"}\n',
    );
  });

  it('removes inline members with one comma', () => {
    expect(
      remove('[{"tool": "a", "verdict": "allow"}, {"tool": "b", "verdict": "allow"}]', '/0'),
    ).toBe('[{"tool": "b", "verdict": "allow"}]');
    expect(
      remove('[{"tool": "a", "verdict": "allow"}, {"tool": "b", "verdict": "allow"}]', '/1'),
    ).toBe('[{"tool": "a", "verdict": "allow"}]');
    expect(remove('[{"tool": "a", "verdict": "allow"}]', '/0')).toBe('[]');
    expect(
      remove(
        '{"approval_rules": [{"tool": "a", "verdict": "allow"}], "approval_mode": "ask"}',
        '/approval_rules',
      ),
    ).toBe('{"approval_mode": "ask"}');
  });
});

describe('a set fix on a member not written yet', () => {
  const set = (text: string, pointer: string, value: unknown) => {
    const parsed = parseDocument('profile.jsonc', text);
    if (!parsed.ok) throw new Error(parsed.message);
    return applyFix(text, parsed.document.root, {
      title: 'set',
      kind: 'unsafe',
      operations: [{ op: 'set', pointer, value }],
    });
  };

  it('adds it last in its object, on its own line or inline as the member before it', () => {
    expect(set('{\n  "a": 1 // one\n}\n', '/project_root', '/repo')).toBe(
      '{\n  "a": 1, // one\n  "project_root": "/repo"\n}\n',
    );
    expect(set('{\r\n  "a": 1 // one\r\n}', '/b', 2)).toBe(
      '{\r\n  "a": 1, // one\r\n  "b": 2\r\n}',
    );
    expect(set('{"a": 1}', '/b', true)).toBe('{"a": 1, "b": true}');
    expect(set('{}', '/b', 'x')).toBe('{"b": "x"}');
    expect(set('{"a": {"c": 1}}', '/a/d', 2)).toBe('{"a": {"c": 1, "d": 2}}');
  });

  it('changes nothing where no object holds the pointer', () => {
    expect(set('{"a": [1]}', '/a/x', 2)).toBe('{"a": [1]}');
    expect(set('{"a": 1}', '/b/c', 2)).toBe('{"a": 1}');
  });
});
