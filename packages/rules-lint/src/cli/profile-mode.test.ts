import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCaptured } from '../testing/capture.js';

const dir = mkdtempSync(join(tmpdir(), 'rules-lint-profile-mode-'));
// Under ask, the ask rule for bash changes nothing (ask-noop-in-ask-mode); under
// bypass the allow and the ask would do nothing instead (unreachable-unmatched).
const RULES = [
  { tool: 'read', verdict: 'allow' },
  { tool: 'bash', verdict: 'ask' },
];

beforeAll(() => {
  mkdirSync(join(dir, 'configured'));
  writeFileSync(join(dir, 'configured/rules-lint.config.json'), '{"mode": "bypass"}');
  const profile = JSON.stringify({ tool_names: ['bash', 'grep', 'read'], approval_rules: RULES });
  writeFileSync(join(dir, 'profile.json'), profile);
  writeFileSync(join(dir, 'configured/profile.json'), profile);
  writeFileSync(join(dir, 'list.json'), JSON.stringify(RULES));
  writeFileSync(
    join(dir, 'examples.json'),
    JSON.stringify({
      approval_rules: RULES,
      examples: [
        { tool: 'bash', expect: 'parked' },
        { tool: 'write', expect: 'parked' },
      ],
    }),
  );
});

async function lintCodes(args: readonly string[]): Promise<string[]> {
  const run = await runCaptured(['check', '--format', 'json', ...args], dir);
  const report = JSON.parse(run.stdout) as { files: { findings: { code: string }[] }[] };
  return report.files.flatMap((file) => file.findings.map((finding) => finding.code));
}

describe('a profile without approval_mode is linted under ask, the mode the kernel runs it under', () => {
  it('whatever --mode or the config says', async () => {
    expect(await lintCodes(['profile.json'])).toEqual(['ask-noop-in-ask-mode']);
    expect(await lintCodes(['--mode', 'bypass', 'profile.json'])).toEqual(['ask-noop-in-ask-mode']);
    expect(await lintCodes(['configured/profile.json'])).toEqual(['ask-noop-in-ask-mode']);
  });

  it('while --mode still sets the mode of a bare list', async () => {
    expect(await lintCodes(['--mode', 'bypass', 'list.json'])).toEqual([
      'unreachable-unmatched',
      'unreachable-unmatched',
    ]);
  });

  it('is evaluated under ask by eval without --mode', async () => {
    const run = await runCaptured(['eval', '--rules', 'profile.json', '--tool', 'grep'], dir);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toMatchObject({ outcome: 'parked' });
    const composed = await runCaptured(
      ['eval', '--rule-set', 'supervised', '--rules', 'profile.json', '--tool', 'grep'],
      dir,
    );
    expect(JSON.parse(composed.stdout).decision).toMatchObject({
      outcome: 'parked',
      layers: [{ layer: 'approval_rules', verdict: 'ask' }, expect.anything()],
    });
  });

  it('runs its examples under ask when they name no mode', async () => {
    const run = await runCaptured(['test', '--format', 'json', 'examples.json'], dir);
    expect(run.code).toBe(0);
  });
});
