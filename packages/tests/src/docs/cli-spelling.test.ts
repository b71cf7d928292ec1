import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './samples.js';

const run = promisify(execFile);

/** The Markdown pages a newcomer reads: the README, docs/ and each package's README. */
function pages(): string[] {
  const docs = readdirSync(join(REPO_ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => join('docs', file));
  const packages = readdirSync(join(REPO_ROOT, 'packages'))
    .map((dir) => join('packages', dir, 'README.md'))
    .filter((file) => {
      try {
        readFileSync(join(REPO_ROOT, file));
        return true;
      } catch {
        return false;
      }
    });
  return ['README.md', ...docs, ...packages];
}

/** Other ways of running the two commands that the docs once mixed. */
const OTHER_SPELLINGS = [
  /node packages\/server\/dist\/cli\.js/,
  /node packages\/rules-lint\/dist\/cli\.js/,
  /pnpm airlock\b/,
  /pnpm --filter @airlock\/server exec airlock/,
];

describe('the airlock command', () => {
  it('runs by name from the checkout after install: pnpm exec airlock and pnpm exec rules-lint', async () => {
    const airlock = await run('pnpm', ['exec', 'airlock', '--help'], { cwd: REPO_ROOT });
    expect(airlock.stdout).toMatch(/^Usage: airlock <command>/);
    const lint = await run('pnpm', ['exec', 'rules-lint', '--help'], { cwd: REPO_ROOT });
    expect(`${lint.stdout}${lint.stderr}`).toMatch(/rules-lint/);
  });

  it('is spelled one way in every doc: pnpm exec airlock (and pnpm exec rules-lint)', () => {
    const found: string[] = [];
    for (const page of pages()) {
      const lines = readFileSync(join(REPO_ROOT, page), 'utf8').split('\n');
      let fenced = false;
      lines.forEach((line, index) => {
        if (line.startsWith('```')) fenced = !fenced;
        const bare =
          fenced &&
          /^\s*(\$ )?airlock (serve|token|tokens|apps|runs|decisions|approvals|overlays|audit|executor|gateway)\b/.test(
            line,
          );
        if (bare || OTHER_SPELLINGS.some((pattern) => pattern.test(line)))
          found.push(`${page}:${index + 1}: ${line.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });
});
