import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { buildDist } from '../testing/build-dist.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'rules-lint-progress-'));
mkdirSync(join(dir, 'policies'));
for (let index = 0; index < 30; index += 1)
  writeFileSync(join(dir, 'policies', `p${index}.json`), '[{"tool": "read", "verdict": "allow"}]');

/** Runs the built CLI; with `terminal`, inside a pseudo-terminal made by util-linux `script`. */
async function check(options: { terminal: boolean; ci: boolean }): Promise<string> {
  const cli = buildDist();
  const env = { ...process.env, CI: options.ci ? 'true' : '' };
  const command = `"${process.execPath}" "${cli}" check policies`;
  const { stdout, stderr } = options.terminal
    ? await run('script', ['-qec', command, '/dev/null'], { cwd: dir, env })
    : await run(process.execPath, [cli, 'check', 'policies'], { cwd: dir, env });
  return `${stdout}${stderr}`;
}

describe('progress of check over many files', () => {
  it('is drawn on a terminal and erased at the end', { timeout: 180_000 }, async () => {
    const output = await check({ terminal: true, ci: false });
    expect(output).toContain('rules-lint: linting file 30 of 30');
    expect(output).toContain('\u001b[2K');
  });

  it('stays out of pipes and CI logs', { timeout: 180_000 }, async () => {
    expect(await check({ terminal: false, ci: false })).not.toContain('linting file');
    expect(await check({ terminal: true, ci: true })).not.toContain('linting file');
  });
});
