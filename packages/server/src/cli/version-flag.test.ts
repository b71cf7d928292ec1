import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runLocalCli } from '../testing/operator-cli.js';

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

describe('airlock --version', { timeout: 60_000 }, () => {
  it("prints the package's version alone on stdout and exits 0", async () => {
    const outcome = await runLocalCli(['--version']);
    expect(outcome).toMatchObject({ code: 0, stdout: `${manifest.version}\n`, stderr: '' });
  });

  it('is listed in airlock --help', async () => {
    const outcome = await runLocalCli(['--help']);
    expect(outcome.stdout).toMatch(/^ {2}--version +Print the version/m);
  });

  it('starts every description of airlock --help in one column', async () => {
    const outcome = await runLocalCli(['--help']);
    const entries = outcome.stdout.split('\n').filter((line) => /^ {2}\S/.test(line));
    expect(entries.length).toBeGreaterThan(15);
    const columns = new Set(
      entries.map((line) => /^ {2}\S+(?: \S+)*? {2,}/.exec(line)?.[0].length),
    );
    expect([...columns]).toEqual([17]);
  });
});
