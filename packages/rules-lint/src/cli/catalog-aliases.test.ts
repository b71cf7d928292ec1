import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCaptured } from '../testing/capture.js';

const dir = mkdtempSync(join(tmpdir(), 'rules-lint-catalog-aliases-'));

beforeAll(() => {
  // The agent calls its tool "read_file"; the profile renames it, so rules see "read".
  writeFileSync(join(dir, 'catalog.json'), '["read_file", "bash"]');
  writeFileSync(
    join(dir, 'profile.json'),
    JSON.stringify({
      approval_mode: 'rules',
      tool_aliases: { read_file: 'read' },
      approval_rules: [{ tool: 'read', verdict: 'allow' }],
    }),
  );
  writeFileSync(
    join(dir, 'raw-name.json'),
    JSON.stringify({
      approval_mode: 'rules',
      tool_aliases: { read_file: 'read' },
      approval_rules: [{ tool: 'read_file', verdict: 'allow' }],
    }),
  );
});

function codes(stdout: string): string[] {
  const report = JSON.parse(stdout) as { files: { findings: { code: string }[] }[] };
  return report.files.flatMap((file) => file.findings.map((finding) => finding.code));
}

describe('check: a --tools catalog is read through the profile tool_aliases', () => {
  it('knows a catalog tool under the name tool_aliases gives it, the name the rule applies to', async () => {
    const check = await runCaptured(
      ['check', '--format', 'json', '--tools', 'catalog.json', 'profile.json'],
      dir,
    );
    expect(codes(check.stdout)).toEqual([]);
    expect(check.code).toBe(0);
    const evaluated = await runCaptured(
      ['eval', '--rules', 'profile.json', '--tool', 'read_file'],
      dir,
    );
    expect(JSON.parse(evaluated.stdout)).toMatchObject({ outcome: 'granted', matched: [0] });
  });

  it('says a rule naming the catalog name before its alias never applies', async () => {
    const check = await runCaptured(
      ['check', '--format', 'json', '--tools', 'catalog.json', 'raw-name.json'],
      dir,
    );
    expect(codes(check.stdout)).toEqual(['unknown-tool']);
    expect(check.stdout).toContain('names an alias of \\"read\\"');
  });
});
