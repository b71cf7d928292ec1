import { describe, expect, it } from 'vitest';
import { runOperatorInProcess } from '../../testing/cli-in-process.js';
import { runOperatorCli } from '../../testing/operator-cli.js';

// No kernel: each command line is refused before any call (port 9 would refuse the connection,
// exit 1, which is what a blank id sent on used to give).
const target = {
  url: 'http://127.0.0.1:9',
  workspaceId: 'ws_x',
  tokens: { member: 'alk_member_x' },
};

describe('an argument that names a row, given empty or blank, is a usage error (exit 2)', {
  timeout: 180_000,
}, () => {
  // `airlock runs show "$RUN"` with RUN unset or blank: nothing to name, so nothing is asked.
  it.each([
    [['runs', 'show', ' '], 'airlock runs show: <run-id> is blank'],
    [['runs', 'stop', '\t'], 'airlock runs stop: <run-id> is blank'],
    [['decisions', 'show', 'run_1', ' '], 'airlock decisions show: <task-key> is blank'],
    [['decisions', 'approve', ' ', 't1'], 'airlock decisions approve: <run-id> is blank'],
    [['decisions', 'deny', 'run_1', '  '], 'airlock decisions deny: <task-key> is blank'],
    [
      ['decisions', 'answer', ' ', 't1', '--decline'],
      'airlock decisions answer: <run-id> is blank',
    ],
    [
      ['notifications', 'redeliver', ' '],
      'airlock notifications redeliver: <delivery-id> is blank',
    ],
    [['tokens', 'revoke', ' '], 'airlock tokens revoke: <credential-id or token> is blank'],
    [['tokens', 'label', ' ', 'Ann'], 'airlock tokens label: <credential-id> is blank'],
    [['tokens', 'label', 'cred_1', ' '], 'airlock tokens label: <name> is blank'],
    [['apps', 'create', ' '], 'airlock apps create: <name> is blank'],
    [['apps', 'remove', ' '], 'airlock apps remove: <application-id> is blank'],
    [['overlays', 'show', 'user', ' '], 'airlock overlays show: <owner> is blank'],
    [
      ['overlays', 'trust', ' ', '--digest', 'd'],
      'airlock overlays trust: <agent-application-id> is blank',
    ],
    [['runs', 'show', ''], 'airlock runs show: <run-id> is empty'],
    [['decisions', 'approve', 'run_1', ''], 'airlock decisions approve: <task-key> is empty'],
  ])('%j', async (args, message) => {
    const refused = await runOperatorInProcess(target, args);
    const help = `airlock ${args[0]}`;
    expect({ code: refused.code, stderr: refused.stderr, stdout: refused.stdout }).toEqual({
      code: 2,
      stderr: `${message}: give a value (see ${help} --help)\n`,
      stdout: '',
    });
  });

  // The local-store commands read their arguments through the same parser.
  it.each([
    [['token', 'revoke', ' '], 'airlock token revoke: <credential-id or token> is blank'],
    [['backup', ' '], 'airlock backup: <file> is blank'],
    [['restore', '\t'], 'airlock restore: <file> is blank'],
  ])('%j', async (args, message) => {
    const refused = await runOperatorInProcess(target, [
      ...args,
      '--data-dir',
      '/nonexistent/airlock',
    ]);
    const help = `airlock ${args[0]}`;
    expect({ code: refused.code, stderr: refused.stderr }).toEqual({
      code: 2,
      stderr: `${message}: give a value (see ${help} --help)\n`,
    });
  });
});

describe('decisions answer refuses a blank --resolution-token (exit 2)', {
  timeout: 120_000,
}, () => {
  // Sent on, the kernel refused it (exit 1) after a warning that a secret was on the command line.
  it.each([[''], [' ']])('--resolution-token %j', async (token) => {
    const refused = await runOperatorInProcess(target, [
      'decisions',
      'answer',
      'run_1',
      't1',
      '--content',
      'yes',
      '--resolution-token',
      token,
    ]);
    expect({ code: refused.code, stderr: refused.stderr }).toEqual({
      code: 2,
      stderr:
        'airlock decisions answer: --resolution-token wants the resolution token, or - to read it from standard input, not an empty value\n',
    });
  });
});

// The cases above run each command in-process, as cli.ts runs it (testing/cli-in-process.ts).
describe('the spawned CLI refuses a blank operand as the command does in-process', {
  timeout: 120_000,
}, () => {
  it.each([[['runs', 'show', ' ']], [['backup', ' ', '--data-dir', '/nonexistent/airlock']]])(
    '%j',
    async (args) => {
      const spawned = await runOperatorCli(target, args);
      expect(spawned).toEqual(await runOperatorInProcess(target, args));
      expect(spawned.code).toBe(2);
    },
  );
});
