import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildDist } from '../testing/build-dist.js';
import { runCaptured } from '../testing/capture.js';

const dir = mkdtempSync(join(tmpdir(), 'rules-lint-bad-input-'));

beforeAll(() => {
  writeFileSync(join(dir, 'not-json.json'), 'tool: bash\nverdict: allow\n');
  writeFileSync(join(dir, 'huge.json'), Buffer.alloc(10 * 1024 * 1024, 0x20));
  writeFileSync(
    join(dir, 'binary.json'),
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0xff]),
  );
  writeFileSync(join(dir, 'latin1.json'), Buffer.from([0x5b, 0x22, 0xe9, 0x22, 0x5d]));
  writeFileSync(join(dir, 'deep.json'), `${'['.repeat(10_000)}${']'.repeat(10_000)}`);
  writeFileSync(join(dir, 'deep-objects.json'), `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`);
  writeFileSync(join(dir, 'empty.json'), '');
  mkdirSync(join(dir, 'empty-folder'));
  writeFileSync(join(dir, 'comment.json'), '// hi\n[]');
  writeFileSync(
    join(dir, 'clean.jsonc'),
    '// comments are fine here\n[{"tool": "bash", "verdict": "allow"}]\n',
  );
  writeFileSync(join(dir, 'refused.json'), '[{"tool": "bash", "verdict": "maybe"}]\n');
  writeFileSync(
    join(dir, 'one-warning.json'),
    '[{"tool": "write", "path": "path", "match": ".env", "verdict": "deny", "reason": "secrets"}]\n',
  );
});

/**
 * One command line run in-process through `runCli`, the function the built
 * `cli.js` hands its arguments and streams to; the last describe spawns the
 * built CLI for the cases where the process itself (exit code, real streams) is what counts.
 */
function run(...args: string[]) {
  return runCaptured(args, dir);
}

/** The built CLI run as a process in `dir`: its exit code and what it printed. */
function spawned(cli: string, args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: dir, timeout: 20_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the CLI on bad input', () => {
  it.each([
    ['missing.json', 'cannot read (no such file)'],
    ['not-json.json', 'not valid JSON'],
    ['huge.json', 'over the 4.0 MiB limit'],
    ['binary.json', 'binary file'],
    ['latin1.json', 'not UTF-8'],
    ['deep.json', 'nesting deeper than 256 levels'],
    ['deep-objects.json', 'nesting deeper than 256 levels'],
    ['empty.json', 'empty'],
    ['comment.json', 'name the file *.jsonc'],
    ['empty-folder', 'no rule file under empty-folder'],
  ])('%s: one line on stderr, exit 2, no stack trace', async (file, words) => {
    const result = await run('check', file);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(words);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 2 on usage mistakes with one line', async () => {
    for (const args of [
      [],
      ['frob'],
      ['check'],
      ['check', '--format', 'xml', 'clean.jsonc'],
      ['eval', '--rules', 'clean.jsonc'],
      ['check', '--nope', 'x'],
    ]) {
      const result = await run(...args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
  });

  it('exits 0 on a clean .jsonc file and 1 on a refused declaration', async () => {
    expect((await run('check', 'clean.jsonc')).code).toBe(0);
    const refused = await run('check', 'refused.json');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('error[verdict_invalid]');
  });
});

describe('the CLI, check --max-warnings', () => {
  it('reads -1 as no limit, as ESLint does, written as two arguments or with =', async () => {
    const over = await run('check', '--max-warnings', '0', 'one-warning.json');
    expect(over.code).toBe(1);
    expect(over.stderr).toBe('rules-lint: 1 warning(s), more than --max-warnings 0\n');
    for (const args of [['--max-warnings', '-1'], ['--max-warnings=-1']]) {
      const unlimited = await run('check', ...args, 'one-warning.json');
      expect(unlimited.code, args.join(' ')).toBe(0);
      expect(unlimited.stdout, args.join(' ')).toContain('warning[fragment-without-star]');
      expect(unlimited.stderr, args.join(' ')).toBe('');
    }
    // No limit on the count; --error-on-warnings still fails on any warning.
    expect(
      (await run('check', '--max-warnings', '-1', '--error-on-warnings', 'one-warning.json')).code,
    ).toBe(1);
  });

  it('refuses another negative number or a word with one line and exit 2', async () => {
    for (const value of ['-2', 'many', '1.5']) {
      const result = await run('check', '--max-warnings', value, 'one-warning.json');
      expect(result.code, value).toBe(2);
      expect(result.stderr, value).toBe(
        `rules-lint: --max-warnings must be a whole number, or -1 for no limit, not "${value}"\n`,
      );
    }
  });
});

describe('the built CLI as a process', () => {
  let cli = '';
  // As long as buildDist waits for another worker's build.
  beforeAll(() => {
    cli = buildDist();
  }, 120_000);

  it('exits 2, 1 or 0 as runCli answers, with one line and no stack trace on bad input', async () => {
    // Side by side: each waits on its own process, none on another's.
    const [missing, deep, huge, usage, clean, refused, over] = await Promise.all([
      spawned(cli, ['check', 'missing.json']),
      spawned(cli, ['check', 'deep.json']),
      spawned(cli, ['check', 'huge.json']),
      spawned(cli, ['frob']),
      spawned(cli, ['check', 'clean.jsonc']),
      spawned(cli, ['check', 'refused.json']),
      spawned(cli, ['check', '--max-warnings', '0', 'one-warning.json']),
    ]);
    for (const [result, words] of [
      [missing, 'cannot read (no such file)'],
      [deep, 'nesting deeper than 256 levels'],
      [huge, 'over the 4.0 MiB limit'],
      [usage, 'unknown command "frob"'],
    ] as const) {
      expect(result.code, words).toBe(2);
      expect(result.stderr, words).toContain(words);
      expect(result.stderr.trim().split('\n'), words).toHaveLength(1);
      expect(result.stderr, words).not.toMatch(/\n\s+at /);
    }
    expect(clean).toMatchObject({ code: 0, stderr: '' });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('error[verdict_invalid]');
    expect(over.code).toBe(1);
    expect(over.stderr).toBe('rules-lint: 1 warning(s), more than --max-warnings 0\n');
  });
});
