import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCaptured } from '../testing/capture.js';

const FIXABLE =
  '[\n  {"tool": "read", "verdict": "allow"},\n  {"tool": "read", "verdict": "allow"}\n]\n';
const SECRET = '{"token": "s3cr3t-value"}\n';

/** A working folder `repo` beside a folder `outside` holding files a pull request must not reach. */
function layout(): { repo: string; outside: string } {
  const root = mkdtempSync(join(tmpdir(), 'rules-lint-links-'));
  const repo = join(root, 'repo');
  const outside = join(root, 'outside');
  mkdirSync(repo);
  mkdirSync(outside);
  writeFileSync(join(outside, 'victim.json'), FIXABLE);
  writeFileSync(join(outside, 'secret.json'), SECRET);
  writeFileSync(join(outside, 'target.txt'), 'untouched\n');
  return { repo, outside };
}

describe('check never writes through a symbolic link', () => {
  it('refuses --fix on a linked file leading outside, and on a linked folder, writing nothing', async () => {
    const { repo, outside } = layout();
    symlinkSync(join(outside, 'victim.json'), join(repo, 'direct.json'));
    symlinkSync(outside, join(repo, 'policies'));
    for (const argv of [
      ['check', '--fix-unsafe', 'direct.json'],
      ['check', '--fix', 'policies'],
    ]) {
      const run = await runCaptured(argv, repo);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('outside-working-folder');
      expect(readFileSync(join(outside, 'victim.json'), 'utf8')).toBe(FIXABLE);
    }
  });

  it('refuses --fix on a link even when it leads inside the working folder', async () => {
    const { repo } = layout();
    writeFileSync(join(repo, 'real.json'), FIXABLE);
    symlinkSync('real.json', join(repo, 'alias.json'));
    const run = await runCaptured(['check', '--fix', 'alias.json'], repo);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^rules-lint: --fix alias\.json: refused to write \(unsafe-write\)/);
    expect(readFileSync(join(repo, 'real.json'), 'utf8')).toBe(FIXABLE);
  });

  it('refuses --output and --write-baseline on a link, before anything is written', async () => {
    const { repo, outside } = layout();
    writeFileSync(join(repo, 'p.json'), FIXABLE);
    symlinkSync(join(outside, 'target.txt'), join(repo, 'report.sarif'));
    symlinkSync(join(outside, 'target.txt'), join(repo, 'baseline.json'));
    const output = await runCaptured(
      ['check', '--fix', '--output', 'report.sarif', 'p.json'],
      repo,
    );
    expect(output.code).toBe(2);
    expect(output.stderr).toBe(
      'rules-lint: --output report.sarif: refused to write (unsafe-write): it is a symbolic link; rules-lint never writes through links\n',
    );
    const baseline = await runCaptured(
      ['check', '--baseline', 'baseline.json', '--write-baseline', 'p.json'],
      repo,
    );
    expect(baseline.code).toBe(2);
    expect(baseline.stderr).toContain('unsafe-write');
    expect(readFileSync(join(outside, 'target.txt'), 'utf8')).toBe('untouched\n');
    expect(readFileSync(join(repo, 'p.json'), 'utf8')).toBe(FIXABLE);
  });

  it('refuses --output through a linked folder, and writes a plain path in or outside the folder', async () => {
    const { repo, outside } = layout();
    writeFileSync(join(repo, 'p.json'), '[]\n');
    symlinkSync(outside, join(repo, 'reports'));
    const linked = await runCaptured(['check', '--output', 'reports/r.json', 'p.json'], repo);
    expect(linked.code).toBe(2);
    expect(linked.stderr).toContain(
      'a symbolic link on its way leads it outside the working folder',
    );
    expect(existsSync(join(outside, 'r.json'))).toBe(false);
    // A path the command line names outside (a CI runner's temporary folder) is the user's choice.
    const away = await runCaptured(
      ['check', '--output', join(outside, 'named.json'), 'p.json'],
      repo,
    );
    expect(away.code).toBe(0);
    expect(existsSync(join(outside, 'named.json'))).toBe(true);
    writeFileSync(join(repo, 'report.json'), 'old');
    const here = await runCaptured(
      ['check', '--format', 'json', '--output', 'report.json', 'p.json'],
      repo,
    );
    expect(here.code).toBe(0);
    expect(JSON.parse(readFileSync(join(repo, 'report.json'), 'utf8')).summary.errors).toBe(0);
  });
});

describe('check never reads through a link leading outside', () => {
  it('does not read a linked file argument: one line, exit 2, no content in the report', async () => {
    const { repo, outside } = layout();
    mkdirSync(join(repo, 'policies'));
    symlinkSync(join(outside, 'secret.json'), join(repo, 'policies', 'p.json'));
    const run = await runCaptured(['check', 'policies/p.json'], repo);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'rules-lint: policies/p.json: not read (outside-working-folder): a symbolic link leads it outside the working folder\n',
    );
    expect(run.stdout + run.stderr).not.toContain('s3cr3t');
  });

  it('refuses a config "tools" path that is absolute, climbs out, or links out', async () => {
    const { repo, outside } = layout();
    writeFileSync(join(repo, 'p.json'), '[]\n');
    symlinkSync(join(outside, 'secret.json'), join(repo, 'tools.json'));
    for (const tools of [join(outside, 'secret.json'), '../outside/secret.json', 'tools.json']) {
      writeFileSync(join(repo, 'rules-lint.config.json'), JSON.stringify({ tools }));
      const run = await runCaptured(['check', 'p.json'], repo);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('"tools" must name a file in the config\'s folder or below it');
      expect(run.stderr).not.toContain('s3cr3t');
    }
  });
});
