import { fileURLToPath } from 'node:url';
import type { PermissionRule } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { fileLinter } from '../../../check-file.js';
import { DEFAULT_CONFIG } from '../../../config/lint-config.js';
import { parseDocument } from '../../../source/document.js';
import { decideBashIn, lintFixture } from '../../testing.js';
import { workingDirectoryGlob } from './rule.js';

const folder = fileURLToPath(new URL('.', import.meta.url));

/** What core decides for Bash run in `cwd` under one rule, before the autonomous set's defaults. */
const decidedIn = (cwd: string, rule: PermissionRule) => decideBashIn(cwd, [rule]);

describe('working-directory-glob', () => {
  it('reports working directories written as globs, offering the directory before a trailing glob', () => {
    const findings = lintFixture(workingDirectoryGlob, folder, 'bad.json');
    expect(findings.map((finding) => finding.pointer)).toEqual([
      '/custom_rule_sets/0/rules/0/working_directory',
      '/custom_rule_sets/0/rules/1/working_directory',
      '/custom_rule_sets/0/rules/2/working_directory',
    ]);
    expect(findings[0]?.message).toContain('not as a glob');
    expect(findings[0]?.message).toContain('never holds in /home/dev/app/src or below it');
    expect(findings[0]?.location.line).toBe(8);
    expect(findings[0]?.fix?.operations).toEqual([
      {
        op: 'set',
        pointer: '/custom_rule_sets/0/rules/0/working_directory',
        value: '/home/dev/app/src',
      },
    ]);
    expect(findings[1]?.fix?.operations[0]).toMatchObject({ value: '/home/dev/app' });
    // A glob in the middle has no one directory to offer.
    expect(findings[2]?.fix).toBeUndefined();
  });

  it('says what core does: the glob is a directory name, so the rule holds neither in the directory nor below it', () => {
    const rule: PermissionRule = {
      verdict: 'deny',
      tools: ['Bash'],
      working_directory: '/home/dev/app/src/**',
      reason: 'held',
    };
    expect(decidedIn('/home/dev/app/src', rule).detail).not.toBe('held');
    expect(decidedIn('/home/dev/app/src/lib', rule).detail).not.toBe('held');
    expect(
      decidedIn('/home/dev/app/src', { ...rule, working_directory: '/home/dev/app/src' }).detail,
    ).toBe('held');
  });

  it('is silent on plain directories', () => {
    expect(lintFixture(workingDirectoryGlob, folder, 'good.json')).toEqual([]);
  });
});

describe('working-directory-glob in permission files', () => {
  function checked(fileName: string, text: string) {
    const parsed = parseDocument(fileName, text);
    if (!parsed.ok) throw new Error(parsed.message);
    const config = { ...DEFAULT_CONFIG, tools: undefined };
    return fileLinter(parsed.document, { config })(parsed.document).map((finding) => finding.code);
  }

  it('is reported in an overlay and a rule set file, and a .jsonc comment silences it', () => {
    const rule = '{"verdict": "allow", "tools": ["Bash"], "working_directory": "/repo/src/**"}';
    expect(
      checked('.airlock/permissions.json', `[{"ruleSetId": "team", "rules": [${rule}]}]`),
    ).toEqual(['working-directory-glob']);
    expect(checked('team.json', `{"id": "team", "rules": [${rule}]}`)).toEqual([
      'working-directory-glob',
    ]);
    const silenced = `{"id": "team", "rules": [\n// rules-lint-disable-next-line working-directory-glob -- kept\n${rule}]}`;
    expect(checked('team.jsonc', silenced)).toEqual([]);
  });
});
