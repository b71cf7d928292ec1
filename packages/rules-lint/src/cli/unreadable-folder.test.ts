import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist } from '../testing/build-dist.js';

/** Another user than root, whom file modes hold back: the CLI runs as nobody when the tests run as root. */
const NOBODY = 65_534;
const asRoot = process.getuid?.() === 0;

let cli = '';
const dir = mkdtempSync(join(tmpdir(), 'rules-lint-unreadable-folder-'));
const locked = join(dir, 'tree/locked');
// A warning (fragment-without-star) in the folder that can be read.
const WARNING =
  '[{"tool": "write", "path": "path", "match": ".env", "verdict": "deny", "reason": "s"}]';

beforeAll(() => {
  cli = buildDist();
  chmodSync(dir, 0o755);
  mkdirSync(locked, { recursive: true });
  writeFileSync(join(dir, 'tree/a.json'), WARNING);
  writeFileSync(join(locked, 'b.json'), '[]');
  writeFileSync(join(dir, 'unreadable.json'), '[]');
  chmodSync(join(dir, 'unreadable.json'), 0o000);
  chmodSync(locked, 0o000);
});
afterAll(() => chmodSync(locked, 0o755));

function check(...args: string[]) {
  const result = spawnSync(process.execPath, [cli, 'check', ...args], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 20_000,
    ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}),
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('check: a folder it cannot read', () => {
  it('is a failure of that input, as an unreadable file is, and the rest is linted', () => {
    const file = check('unreadable.json');
    expect(file).toMatchObject({
      code: 2,
      stderr: 'rules-lint: unreadable.json: cannot read (permission denied)\n',
    });
    for (const input of ['tree', 'tree/**/*.json']) {
      const run = check('--format', 'json', input);
      expect([input, run.stderr]).toEqual([
        input,
        'rules-lint: tree/locked: cannot read folder (permission denied)\n',
      ]);
      expect(run.code).toBe(2);
      const report = JSON.parse(run.stdout) as {
        files: { file: string; failure?: unknown; findings: { code: string }[] }[];
      };
      expect(
        report.files.map((entry) => [
          entry.file,
          entry.failure === undefined ? 'read' : 'failed',
          entry.findings.map((finding) => finding.code),
        ]),
      ).toEqual([
        ['tree/a.json', 'read', ['fragment-without-star']],
        ['tree/locked', 'failed', []],
      ]);
    }
  });

  it('is a failure when it is the folder named, not an internal error', () => {
    const run = check('tree/locked');
    expect(run.stderr).toBe('rules-lint: tree/locked: cannot read folder (permission denied)\n');
    expect(run.code).toBe(2);
  });

  it('is no loss to a glob that could match nothing in it', () => {
    const run = check('tree/*.json');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });
});
