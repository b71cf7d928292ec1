import { describe, expect, it } from 'vitest';
import { tolerantRuleFile } from './rule-at.js';

const list = (tool: string) => `[{"tool": "${tool}", "verdict": "allow"}]`;

describe('tolerantRuleFile', () => {
  it('reads a text once while hover and completion keep asking about it', () => {
    const text = list('bash');
    const first = tolerantRuleFile(text);
    // Another string with the same characters (an editor's next request) gets the same read.
    expect(tolerantRuleFile(` ${text}`.slice(1))).toBe(first);
    expect(first.file.rules).toEqual([{ tool: 'bash', verdict: 'allow' }]);
  });

  it('reads a changed text anew, and keeps only the last two texts', () => {
    const first = tolerantRuleFile(list('bash'));
    const changed = tolerantRuleFile(list('write'));
    expect(changed).not.toBe(first);
    expect(changed.file.rules).toEqual([{ tool: 'write', verdict: 'allow' }]);
    expect(tolerantRuleFile(list('bash'))).toBe(first);
    tolerantRuleFile(list('read'));
    tolerantRuleFile(list('edit'));
    const again = tolerantRuleFile(list('bash'));
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });
});
