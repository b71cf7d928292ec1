import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildDist } from '../testing/build-dist.js';

let cli = '';
const dir = mkdtempSync(join(tmpdir(), 'rules-lint-closed-output-'));

beforeAll(() => {
  cli = buildDist();
  // Thousands of findings: far more output than a pipe holds, so writes go on after the reader left.
  const rules = Array.from({ length: 2000 }, (_, index) => ({
    tool: `tool${index}`,
    verdict: 'deny',
  }));
  writeFileSync(join(dir, 'many.json'), JSON.stringify(rules, null, 1));
  writeFileSync(join(dir, 'clean.json'), '[{"tool": "bash", "verdict": "allow"}]\n');
});

describe('the built CLI when its output cannot be written', () => {
  it('a reader that stops early (check | head) gets no stack trace, and the exit code stays the lint result', async () => {
    const child = spawn(process.execPath, [cli, 'check', 'many.json'], { cwd: dir });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    // Read the first chunk, then go away as `head -1` does.
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(1);
  });

  it.skipIf(!existsSync('/dev/full'))(
    'a report that cannot be written (a full disk) is one line on stderr and exit 2, not 1 or 0',
    () => {
      for (const args of [['check', 'clean.json'], ['check', 'many.json'], ['schema']]) {
        const full = openSync('/dev/full', 'w');
        const result = spawnSync(process.execPath, [cli, ...args], {
          cwd: dir,
          stdio: ['ignore', full, 'pipe'],
          encoding: 'utf8',
          timeout: 20_000,
        });
        expect(result.stderr, args.join(' ')).toBe(
          'rules-lint: cannot write to standard output (ENOSPC)\n',
        );
        expect(result.status, args.join(' ')).toBe(2);
      }
    },
  );
});
