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
    expect(outcome.stdout).toMatch(/^ {2}--version {3}Print the version/m);
  });
});
