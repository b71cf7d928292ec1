import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fileLinter } from '../../../check-file.js';
import { DEFAULT_CONFIG } from '../../../config/lint-config.js';
import { analyseText } from '../../../lsp/analyse-text.js';
import { parseDocument } from '../../../source/document.js';
import { lintFixture } from '../../testing.js';
import { targetsWithoutProjectRoot } from './rule.js';

const folder = fileURLToPath(new URL('.', import.meta.url));

function checked(fileName: string, text: string) {
  const parsed = parseDocument(fileName, text);
  if (!parsed.ok) throw new Error(parsed.message);
  const lint = fileLinter(parsed.document, { config: { ...DEFAULT_CONFIG, tools: undefined } });
  return lint(parsed.document).filter((finding) => finding.code === targetsWithoutProjectRoot.id);
}

describe('targets-without-project-root', () => {
  it('reports each target rule of a profile without project_root, saying what happens at run time', () => {
    const findings = lintFixture(targetsWithoutProjectRoot, folder, 'bad.json');
    expect(findings.map((finding) => finding.pointer)).toEqual([
      '/custom_rule_sets/0/rules/0/targets',
      '/custom_rule_sets/0/rules/2/targets',
      '/custom_rule_sets/0/rules/3/targets',
    ]);
    expect(findings[0]?.severity).toBe('warning');
    expect(findings[0]?.message).toContain('deny rule 0 names path targets (secrets/**, **/.env)');
    expect(findings[0]?.message).toContain('every such call asks a person');
    expect(findings[2]?.message).toContain('this rule never grants such a call');
    expect(findings[0]?.message).toContain('Set "project_root"');
    // The finding sits on the `targets` key of the rule (line 8 of the fixture).
    expect(findings[0]?.location.line).toBe(8);
    const text = readFileSync(join(folder, 'fixtures', 'bad.json'), 'utf8');
    const { offset, length } = findings[0]!.location;
    expect(text.slice(offset, offset + length)).toBe('"targets"');
  });

  it('is silent once project_root is set, and on rules without targets', () => {
    expect(lintFixture(targetsWithoutProjectRoot, folder, 'good.json')).toEqual([]);
    expect(lintFixture(targetsWithoutProjectRoot, folder, 'no-targets.json')).toEqual([]);
  });

  it('is reported by check and by the language server, at the same place', () => {
    const text = readFileSync(join(folder, 'fixtures', 'bad.json'), 'utf8');
    const viaCheck = checked('profile.json', text);
    expect(viaCheck).toHaveLength(3);
    const viaEditor = analyseText({
      fileName: 'profile.json',
      text,
      config: { ...DEFAULT_CONFIG, tools: undefined },
      tools: undefined,
    });
    if (!viaEditor.ok) throw new Error(viaEditor.message);
    const shown = viaEditor.findings.filter(
      (finding) => finding.code === targetsWithoutProjectRoot.id,
    );
    expect(shown.map((finding) => finding.location)).toEqual(
      viaCheck.map((finding) => finding.location),
    );
  });

  it('is silent on a rule set file or an overlay, whose profile the linter cannot see', () => {
    const set = '{"id": "team", "rules": [{"verdict": "deny", "targets": ["secrets/**"]}]}';
    expect(checked('team.json', set)).toEqual([]);
    const overlay =
      '[{"ruleSetId": "team", "rules": [{"verdict": "deny", "targets": ["secrets/**"]}]}]';
    expect(checked('.airlock/permissions.json', overlay)).toEqual([]);
  });
});
