import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lintText } from './lint.js';
import { readRuleFile } from './rule-file.js';
import { runCaptured } from './testing/capture.js';

/** The code and pointer of every declaration finding of a text. */
function declarationFindings(fileName: string, text: string): string[] {
  const outcome = lintText(fileName, text);
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome.findings
    .filter((finding) => finding.source === 'declaration')
    .map((finding) => `${finding.code} ${finding.pointer} ${finding.severity}`);
}

// The texts are JSON escapes, as a rule file carries them: "\u0000" and a lone "\ud800".
describe('policy texts the kernel refuses before validating', () => {
  it('a rule reason holding NUL is a holds_nul error, and the file has no policy', () => {
    const text =
      '{"approval_mode": "rules", "approval_rules": [{"tool": "bash", "verdict": "deny", "reason": "no \\u0000 here"}]}';
    expect(declarationFindings('agent.json', text)).toEqual([
      'holds_nul /approval_rules/0/reason error',
    ]);
    expect(readRuleFile(JSON.parse(text)).policy).toBeUndefined();
  });

  it('a lone surrogate in a bare list reason, a tool alias key or a contract constraint is not_unicode', () => {
    expect(
      declarationFindings(
        'list.json',
        '[{"tool": "bash", "verdict": "deny", "reason": "x \\ud800"}]',
      ),
    ).toEqual(['not_unicode /0/reason error']);
    const profile = `{
      "approval_mode": "bypass",
      "tool_aliases": {"run\\udc00": "bash"},
      "action_contract": {"contract_version": 1, "constraints": ["keep \\u0000 backups"], "authorization": {}}
    }`;
    expect(declarationFindings('agent.json', profile)).toEqual([
      'not_unicode /tool_aliases/run\udc00 error',
      'holds_nul /action_contract/constraints/0 error',
    ]);
  });

  it('NUL in a pattern, and texts in examples (not sent to the kernel), stay clean', () => {
    const text = `{
      "approval_mode": "rules",
      "approval_rules": [{"tool": "bash", "path": "command", "match": "*\\u0000*", "verdict": "deny", "reason": "nul"}],
      "examples": [{"tool": "bash", "input": {"command": "a\\u0000b \\ud800"}, "expect": "denied"}]
    }`;
    expect(declarationFindings('agent.json', text)).toEqual([]);
  });

  it('an overlay document with a NUL reason is refused as the kernel refuses it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rules-lint-policy-text-'));
    writeFileSync(
      join(dir, 'overlay.json'),
      '[{"ruleSetId": "supervised", "rules": [{"verdict": "deny", "tools": ["bash"], "reason": "a\\u0000b"}]}]',
    );
    const check = await runCaptured(['check', '--format', 'json', 'overlay.json'], dir);
    expect(check.code).toBe(1);
    const report = JSON.parse(check.stdout) as {
      files: { findings: { code: string; pointer: string }[] }[];
    };
    expect(
      report.files[0]?.findings.map((finding) => `${finding.code} ${finding.pointer}`),
    ).toEqual(['holds_nul /0/rules/0/reason']);
  });

  it('check exits 1 and eval refuses the file instead of deciding under it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rules-lint-policy-text-'));
    writeFileSync(
      join(dir, 'agent.json'),
      '{"approval_mode": "rules", "approval_rules": [{"tool": "bash", "verdict": "allow", "reason": "ok \\ud800"}]}',
    );
    const check = await runCaptured(['check', 'agent.json'], dir);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('error[not_unicode]');
    const evaluated = await runCaptured(['eval', '--rules', 'agent.json', '--tool', 'bash'], dir);
    expect(evaluated.code).toBe(1);
    expect(evaluated.stdout).toBe('');
    expect(evaluated.stderr).toContain('not_unicode');
  });
});
