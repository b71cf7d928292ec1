import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lintText } from './lint.js';
import { readRuleFile } from './rule-file.js';
import { runCaptured } from './testing/capture.js';

/** Each declaration finding of a text: code, pointer and where it starts (line:column). */
function declarationFindings(text: string): string[] {
  const outcome = lintText('agent.json', text);
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome.findings
    .filter((finding) => finding.source === 'declaration')
    .map(
      (finding) =>
        `${finding.code} ${finding.pointer} ${finding.location.line}:${finding.location.column}`,
    );
}

// Lines end in CRLF, and the first culprit follows a character outside the BMP on its line, so
// positions must count lines and UTF-16 columns as an editor does.
const COSTLY = [
  '{',
  '  "approval_mode": "rules",',
  '  "approval_rules": [{"tool": "edit", "verdict": "allow"}],',
  '  "tool_manifest": [',
  '    {"name": "edit", "risk_traits": ["write"], "input_schema": {',
  '      "description": "\u{1F512}", "properties": {"default": {"type": "array", "uniqueItems": true}}}},',
  '    {"name": "find", "risk_traits": ["read"], "input_schema": {',
  '      "patternProperties": {"[a-z]{300}": {"type": "string"}}}},',
  '    {"name": "grep", "risk_traits": ["read"], "input_schema": {',
  '      "properties": {"q": {"type": "string", "pattern": "\u00e9{200}x{100}"}}}},',
  '    {"name": "pick", "risk_traits": ["read"], "input_schema": {',
  `      "properties": {"enum": {"enum": [${Array.from({ length: 3000 }, (_, i) => i).join(',')}]}}}}`,
  '  ]',
  '}',
].join('\r\n');

describe('tool_manifest input schemas the kernel refuses at declaration', () => {
  it('are tool_manifest_invalid errors at the culprit, and the file has no policy', () => {
    expect(declarationFindings(COSTLY)).toEqual([
      'tool_manifest_invalid /tool_manifest/0/input_schema/properties/default/uniqueItems 6:87',
      'tool_manifest_invalid /tool_manifest/1/input_schema/patternProperties/[a-z]{300} 8:29',
      'tool_manifest_invalid /tool_manifest/2/input_schema/properties/q/pattern 10:57',
      'tool_manifest_invalid /tool_manifest/3/input_schema 11:63',
    ]);
    expect(readRuleFile(JSON.parse(COSTLY)).policy).toBeUndefined();
  });

  it('leave a bounded schema clean', () => {
    const clean = `{"approval_mode": "rules", "approval_rules": [], "tool_manifest": [
      {"name": "edit", "risk_traits": ["write"], "input_schema": {"type": "object", "properties": {
        "tags": {"type": "array", "uniqueItems": true, "items": {"type": "string"}},
        "rows": {"type": "array", "uniqueItems": true, "maxItems": 100},
        "id": {"type": "string", "pattern": "^[a-z]{1,64}$"}}}}]}`;
    expect(declarationFindings(clean)).toEqual([]);
  });

  it('make check exit 1 and eval refuse the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rules-lint-manifest-'));
    writeFileSync(join(dir, 'agent.json'), COSTLY);
    const check = await runCaptured(['check', 'agent.json'], dir);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('agent.json:6:87: error[tool_manifest_invalid]');
    const evaluated = await runCaptured(['eval', '--rules', 'agent.json', '--tool', 'edit'], dir);
    expect(evaluated.code).toBe(1);
    expect(evaluated.stderr).toContain('tool_manifest_invalid');
  });
});
