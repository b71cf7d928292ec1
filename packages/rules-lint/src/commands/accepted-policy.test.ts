import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCaptured } from '../testing/capture.js';

// The kernel refuses a body with a key written twice, so no command decides under such a file.
const TWICE =
  '{"approval_mode": "rules", "approval_rules": [{"tool": "bash", "verdict": "deny", "verdict": "allow"}], "examples": [{"tool": "bash", "expect": "granted"}]}';

describe('a file with a key written twice', () => {
  it('eval refuses it instead of deciding under the copy JSON.parse keeps, whatever the config says', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rules-lint-twice-'));
    writeFileSync(join(dir, 'agent.json'), TWICE);
    writeFileSync(join(dir, 'rules-lint.config.json'), '{"rules": {"duplicate-key": "off"}}');
    const evaluated = await runCaptured(['eval', '--rules', 'agent.json', '--tool', 'bash'], dir);
    expect(evaluated.code).toBe(1);
    expect(evaluated.stdout).toBe('');
    expect(evaluated.stderr).toContain('error[duplicate-key]');
    const ruleSet = await runCaptured(
      ['eval', '--rule-set', 'supervised', '--rules', 'agent.json', '--tool', 'bash'],
      dir,
    );
    expect(ruleSet.code).toBe(1);
    expect(ruleSet.stdout).toBe('');
  });

  it('test runs none of its examples', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rules-lint-twice-'));
    writeFileSync(join(dir, 'agent.json'), TWICE);
    const tested = await runCaptured(['test', 'agent.json'], dir);
    expect(tested.code).toBe(1);
    expect(tested.stderr).toContain('the kernel would refuse this declaration');
  });
});
