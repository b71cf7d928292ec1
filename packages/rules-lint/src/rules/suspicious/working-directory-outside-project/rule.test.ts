import { fileURLToPath } from 'node:url';
import type { PermissionRule } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { decideBashIn, lintFixture, lintWith } from '../../testing.js';
import { workingDirectoryOutsideProject } from './rule.js';

const folder = fileURLToPath(new URL('.', import.meta.url));

describe('working-directory-outside-project', () => {
  it('reports working directories neither inside project_root nor above it', () => {
    const findings = lintFixture(workingDirectoryOutsideProject, folder, 'bad.json');
    expect(findings.map((finding) => finding.pointer)).toEqual(
      [1, 2, 3].map((index) => `/custom_rule_sets/0/rules/${index}/working_directory`),
    );
    expect(findings[0]?.message).toContain(
      'lies outside the profile\'s project_root "/home/dev/app"',
    );
    expect(findings[0]?.message).toContain('asks a person under any deny or ask target rule');
    expect(findings[0]?.location.line).toBe(9);
    expect(findings[1]?.message).toContain('only in letter case');
  });

  it('says what core does with a call made there', () => {
    const rules: PermissionRule[] = [
      { verdict: 'deny', targets: ['secrets/**'] },
      { verdict: 'allow', tools: ['Bash'] },
    ];
    const decide = (cwd: string) => decideBashIn(cwd, rules, 'cat notes.txt').verdict;
    expect(decide('/home/dev/app/src')).toBe('allow');
    expect(decide('/home/dev/ap/src')).toBe('ask');
  });

  it('is silent inside or above the project root, and without one', () => {
    expect(lintFixture(workingDirectoryOutsideProject, folder, 'good.json')).toEqual([]);
    const noRoot =
      '{"custom_rule_sets": [{"id": "team", "rules": [{"verdict": "allow", "working_directory": "/srv/x"}]}]}';
    expect(lintWith(workingDirectoryOutsideProject, noRoot)).toEqual([]);
  });
});
