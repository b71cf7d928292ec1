import { describe, expect, it } from 'vitest';
import { runLocalCli } from '../testing/operator-cli.js';
import { unknownCommandLine } from './unknown-command.js';

/** A token as `airlock serve` prints one (the kernel's format: alk_<kind>_ then 43 characters). */
const TOKEN = 'alk_member_0Fq3nB8xVt2yKpR7wLcD9eHsJ4uMaZ6gXiN1oQ5rTbY';

describe('airlock <word> with no such command', { timeout: 60_000 }, () => {
  it('does not print a token pasted as the command, and lists the commands', async () => {
    const outcome = await runLocalCli([TOKEN]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).not.toContain('alk_');
    expect(outcome.stderr).not.toContain(TOKEN.slice(11));
    expect(outcome.stderr).toMatch(
      /^airlock: unknown command \(not repeated here: it may be a secret\)\n\nUsage: airlock <command>/,
    );
    expect(outcome.stderr).toContain('  backup ');
  });

  it.each([
    ['executor', []],
    ['gateway', ['mcpx']],
    ['executor', ['mpc']],
  ])(
    'airlock %s %j names the word it lacks, mcp, not an unknown command',
    async (command, rest) => {
      const outcome = await runLocalCli([command, ...rest]);
      expect(outcome.code).toBe(2);
      expect(outcome.stderr).toBe(
        `airlock ${command}: it takes mcp: airlock ${command} mcp [options] (airlock ${command} mcp --help)\n`,
      );
    },
  );

  it('airlock gateway --help points at airlock gateway mcp --help, exit 0', async () => {
    const outcome = await runLocalCli(['gateway', '--help']);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toBe(
      'airlock gateway: it takes mcp: airlock gateway mcp [options] (airlock gateway mcp --help)\n',
    );
  });

  it('names a short mistyped command, its control characters escaped', async () => {
    const typo = await runLocalCli(['sevre']);
    expect(typo.code).toBe(2);
    expect(typo.stderr.split('\n')[0]).toBe('airlock: unknown command sevre');
    const forged = await runLocalCli(['x\u001b]0;owned\u0007']);
    expect(forged.stderr.split('\n')[0]).toBe('airlock: unknown command x\\x1b]0;owned\\x07');
  });

  it.each([
    ['a token', TOKEN],
    ['a token in a flag', `--token=${TOKEN.slice(0, 20)}`],
    ['a short piece of a token', 'alk_agent_abc'],
    ['a word past 40 characters', 'sk-proj-0123456789abcdefghijklmnopqrstuvwxyz'],
  ])('holds back %s', (_what, word) => {
    expect(unknownCommandLine(word)).toBe(
      `unknown ${word.startsWith('-') ? 'option' : 'command'} (not repeated here: it may be a secret)`,
    );
  });

  // Every command group calls a mistyped flag an option (unknown-option.test.ts); so do these two.
  it.each([
    [[], '--bogus', /^\nUsage: airlock <command>/],
    [['hooks'], '--bogus', /^Usage:\n {2}airlock hooks install /],
    [['hooks'], '-x', /^Usage:\n {2}airlock hooks install /],
  ])('airlock %j %s says unknown option, with the usage, exit 2', async (command, flag, usage) => {
    const outcome = await runLocalCli([...command, flag]);
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe('');
    const [first, ...rest] = outcome.stderr.split('\n');
    expect(first).toBe(`${['airlock', ...command].join(' ')}: unknown option ${flag}`);
    expect(rest.join('\n')).toMatch(usage);
  });

  it.each(['sevre', 'backups', 'toString', 'a'.repeat(40)])('repeats %s', (word) => {
    expect(unknownCommandLine(word)).toBe(`unknown command ${word}`);
  });
});
