import { fileURLToPath } from 'node:url';
import type { PermissionRule } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { decideBashIn, lintFixture } from '../../testing.js';
import { workingDirectoryResolved } from './rule.js';

const folder = fileURLToPath(new URL('.', import.meta.url));

/** Whether `rule` decides Bash run in `cwd` (its reason is the outcome's detail). */
const held = (cwd: string, rule: PermissionRule) =>
  decideBashIn(cwd, [rule]).detail === rule.reason;

describe('working-directory-resolved', () => {
  it('says which directory the kernel compares, with a safe fix that writes it', () => {
    const findings = lintFixture(workingDirectoryResolved, folder, 'bad.json');
    expect(findings.map((finding) => finding.pointer)).toEqual(
      [0, 1, 2, 3].map((index) => `/custom_rule_sets/0/rules/${index}/working_directory`),
    );
    expect(findings[0]?.message).toContain('is compared as "/home/dev/app/secrets"');
    expect(findings[0]?.severity).toBe('warning');
    expect(findings[0]?.location.line).toBe(8);
    expect(findings[0]?.fix).toMatchObject({
      kind: 'safe',
      operations: [{ op: 'set', value: '/home/dev/app/secrets' }],
    });
    expect(findings[1]?.fix?.operations[0]).toMatchObject({ value: '/home/dev/app/src' });
    // Slashes alone change no reading: info.
    expect(findings[2]?.severity).toBe('info');
    expect(findings[2]?.fix?.operations[0]).toMatchObject({ value: '/home/dev/app/docs' });
    // A .. at the root stays there, as the system keeps it.
    expect(findings[3]?.message).toContain('is compared as "/etc"');
    expect(findings[3]?.fix?.operations[0]).toMatchObject({ value: '/etc' });
  });

  it('matches what core does with such a value', () => {
    const rule: PermissionRule = {
      verdict: 'deny',
      tools: ['Bash'],
      working_directory: '/home/dev/app/src/../secrets',
      reason: 'held',
    };
    expect(held('/home/dev/app/secrets', rule)).toBe(true);
    expect(held('/home/dev/app/src', rule)).toBe(false);
    const above = { ...rule, working_directory: '/../etc' };
    expect(held('/etc', above)).toBe(true);
  });

  it('is silent on values written as compared', () => {
    expect(lintFixture(workingDirectoryResolved, folder, 'good.json')).toEqual([]);
  });
});
