import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './samples.js';

/*
 * The flag table of docs/operations.md against the `airlock serve` that is
 * built: every flag, its variable and its default as `--help` prints them,
 * and each duration's range as serve refuses a value outside it.
 */

const run = promisify(execFile);
const CLI = join(REPO_ROOT, 'packages', 'server', 'dist', 'cli.js');
const scratch = mkdtempSync(join(tmpdir(), 'airlock-docs-ops-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** One row of the page's flag table. */
interface Row {
  flag: string;
  variable: string;
  defaults: string;
  about: string;
}

function tableRows(): Row[] {
  const page = readFileSync(join(REPO_ROOT, 'docs', 'operations.md'), 'utf8');
  const rows: Row[] = [];
  for (const line of page.split('\n')) {
    const cells = /^\| `(--[a-z-]+)` \|(.*)\|(.*)\|(.*)\|$/.exec(line);
    if (!cells) continue;
    const [, flag = '', variable = '', defaults = '', about = ''] = cells;
    rows.push({ flag, variable: variable.trim().replaceAll('`', ''), defaults, about });
  }
  return rows;
}

/** Each option of `airlock serve --help` with the text of its entry. */
async function helpEntries(): Promise<Map<string, string>> {
  const { stdout } = await run(process.execPath, [CLI, 'serve', '--help']);
  const entries = new Map<string, string>();
  let current: string | null = null;
  for (const line of stdout.split('\n')) {
    const option = /^ {2}(?:-\w, )?(--[a-z-]+)/.exec(line);
    if (option) {
      current = option[1] ?? null;
      if (current) entries.set(current, line);
    } else if (current && /^ {4,}\S/.test(line)) {
      entries.set(current, `${entries.get(current)} ${line.trim()}`);
    } else current = null;
  }
  entries.delete('--help');
  return entries;
}

/** The words serve refuses a duration with: `--lease must be between 1s and 1d`. */
async function durationRange(flag: string): Promise<string> {
  const refused = await run(
    process.execPath,
    [CLI, 'serve', '--no-demo', '--port', '0', '--data-dir', join(scratch, 'store'), flag, '0ms'],
    { timeout: 60_000 },
  ).then(
    () => ({ code: 0, stderr: '' }),
    (error: { code?: number; stderr?: string }) => ({
      code: error.code,
      stderr: error.stderr ?? '',
    }),
  );
  expect(refused.code, `${flag} 0ms`).toBe(2);
  const range = /must be between (\S+) and (\S+),/.exec(refused.stderr);
  expect(range, refused.stderr).not.toBeNull();
  return `\`${range?.[1]}\` to \`${range?.[2]}\``;
}

describe('docs/operations.md: the flags of airlock serve', () => {
  it('lists every flag --help prints, and no other', { timeout: 60_000 }, async () => {
    const help = await helpEntries();
    const documented = tableRows().map((row) => row.flag);
    expect(documented.length).toBeGreaterThan(20);
    expect([...documented].sort()).toEqual([...help.keys()].sort());
  });

  it('names the variable and the default --help names', { timeout: 60_000 }, async () => {
    const help = await helpEntries();
    for (const row of tableRows()) {
      const entry = help.get(row.flag) ?? '';
      const variable = /\(env ([A-Z_]+)/.exec(entry)?.[1] ?? '';
      expect(row.variable, `${row.flag}: ${entry}`).toBe(variable);
      const defaults = entry.slice(Math.max(0, entry.indexOf('default ')));
      for (const [, value] of row.defaults.matchAll(/`([^`]+)`/g)) {
        expect(defaults, `${row.flag}: the default ${value}`).toMatch(/^default /);
        expect(defaults, `${row.flag}: the default ${value}`).toContain(` ${value}`);
      }
    }
  });

  it('gives each duration the range serve enforces', { timeout: 180_000 }, async () => {
    const durations = tableRows().filter((row) => /^\s*`\d+(ms|s|m|h|d)`\s*$/.test(row.defaults));
    expect(durations.map((row) => row.flag)).toContain('--lease');
    const ranges = await Promise.all(durations.map((row) => durationRange(row.flag)));
    durations.forEach((row, index) => {
      expect(row.about, row.flag).toContain(ranges[index]);
    });
  });
});
