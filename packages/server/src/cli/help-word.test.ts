import { describe, expect, it } from 'vitest';
import { runLocalCli } from '../testing/operator-cli.js';

/** What a new user types in the first hour, from other tools' habits. */
describe('the words a new user tries first', { timeout: 120_000 }, () => {
  it('airlock help prints the help, as --help does (exit 0)', async () => {
    const asked = await runLocalCli(['help']);
    expect(asked.code).toBe(0);
    expect(asked.stderr).toBe('');
    expect(asked.stdout).toBe((await runLocalCli(['--help'])).stdout);
  });

  it('airlock help <command> prints that command help', async () => {
    const asked = await runLocalCli(['help', 'runs']);
    expect(asked.code).toBe(0);
    expect(asked.stdout).toBe((await runLocalCli(['runs', '--help'])).stdout);
    expect(asked.stdout).toContain('airlock runs list');
  });

  it.each([
    ['doctor', "unknown command doctor (airlock hooks doctor checks the coding agents' hooks)"],
    [
      'init',
      'unknown command init (airlock serve makes the store, a workspace and its tokens on its first start)',
    ],
    ['version', 'unknown command version (airlock --version prints it)'],
  ])('airlock %s says which command does that', async (word, line) => {
    const refused = await runLocalCli([word]);
    expect(refused.code).toBe(2);
    expect(refused.stderr.split('\n')[0]).toBe(`airlock: ${line}`);
  });
});
