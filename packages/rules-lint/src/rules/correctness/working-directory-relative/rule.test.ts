import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { lintFixture, lintWith } from '../../testing.js';
import { workingDirectoryRelative } from './rule.js';

const folder = fileURLToPath(new URL('.', import.meta.url));

describe('working-directory-relative', () => {
  it('reports a relative working_directory, offering the directory under project_root', () => {
    const findings = lintFixture(workingDirectoryRelative, folder, 'bad.json');
    expect(findings.map((finding) => finding.pointer)).toEqual([
      '/custom_rule_sets/0/rules/0/working_directory',
      '/custom_rule_sets/0/rules/1/working_directory',
    ]);
    expect(findings[0]?.severity).toBe('error');
    expect(findings[0]?.message).toContain('"src" is relative');
    expect(findings[0]?.message).toContain('falls back to Baseline');
    expect(findings[0]?.location.line).toBe(8);
    expect(findings[0]?.fix).toEqual({
      title: 'Write the absolute directory "/home/dev/app/src"',
      kind: 'unsafe',
      operations: [
        {
          op: 'set',
          pointer: '/custom_rule_sets/0/rules/0/working_directory',
          value: '/home/dev/app/src',
        },
      ],
    });
    expect(findings[1]?.fix?.operations).toEqual([
      {
        op: 'set',
        pointer: '/custom_rule_sets/0/rules/1/working_directory',
        value: '/home/dev/app/dist',
      },
    ]);
  });

  it('offers no fix when the profile sets no absolute project_root', () => {
    const text =
      '{"custom_rule_sets": [{"id": "team", "rules": [{"verdict": "allow", "working_directory": "src"}]}]}';
    const [finding] = lintWith(workingDirectoryRelative, text);
    expect(finding?.message).toContain('such as "/home/dev/app/src"');
    expect(finding?.fix).toBeUndefined();
  });

  it('is silent on absolute directories', () => {
    expect(lintFixture(workingDirectoryRelative, folder, 'good.json')).toEqual([]);
  });
});
