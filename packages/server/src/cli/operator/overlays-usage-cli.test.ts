import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runOperatorInProcess } from '../../testing/cli-in-process.js';
import { runOperatorCli } from '../../testing/operator-cli.js';

// No kernel: each command line is refused before any call (port 9 would refuse the connection).
const target = {
  url: 'http://127.0.0.1:9',
  workspaceId: 'ws_x',
  tokens: { member: 'alk_member_x' },
};
const dir = mkdtempSync(join(tmpdir(), 'airlock-overlays-usage-'));
// A document the file check refuses (exit 1): a target outside the project.
const bad = join(dir, 'bad.json');
writeFileSync(
  bad,
  JSON.stringify([{ ruleSetId: 'x', rules: [{ verdict: 'allow', targets: ['/etc'] }] }]),
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('airlock overlays and approvals name a missing or blank argument (exit 2) before they read and judge the file', {
  timeout: 120_000,
}, () => {
  it.each([
    [
      ['overlays', 'replace', 'user', '--file', bad, '--digest', 'd'],
      'airlock overlays: give <owner>',
    ],
    [
      ['overlays', 'replace', 'user', 'me', '--file', bad],
      'airlock overlays: give --digest <digest-you-read>',
    ],
    [['overlays', 'load', '--file', bad], 'airlock overlays: give <agent-application-id>'],
    // The repository holds no .airlock/permissions.json, yet the missing id is what is wrong.
    [['overlays', 'load', '--repo', dir], 'airlock overlays: give <agent-application-id>'],
    // A blank flag is a missing one: sent on, a blank digest reached the kernel, and an empty
    // --repo read the current directory's .airlock/permissions.json.
    [['overlays', 'trust', 'app_x', '--digest', ' '], 'airlock overlays: give --digest <digest>'],
    [
      ['overlays', 'replace', 'user', 'me', '--file', bad, '--digest', ' '],
      'airlock overlays: give --digest <digest-you-read>',
    ],
    [['overlays', 'load', 'app_x', '--repo', ''], 'airlock overlays: give --repo <dir>'],
    [['overlays', 'load', 'app_x', '--file', ' '], 'airlock overlays: give --file <path>'],
    [['approvals', 'set', '--file', ''], 'airlock approvals set: give --file <policy.json>'],
    [['approvals', 'set', '--file', ' '], 'airlock approvals set: give --file <policy.json>'],
  ])('%j', async (args, message) => {
    const refused = await runOperatorInProcess(target, args);
    expect(refused.stderr).toBe(`${message}\n`);
    expect(refused.code).toBe(2);
  });
});

// The cases above run each command in-process, as cli.ts runs it (testing/cli-in-process.ts).
describe('the spawned CLI names a missing argument as the command does in-process', {
  timeout: 120_000,
}, () => {
  it.each([[['overlays', 'load', '--file', bad]], [['approvals', 'set', '--file', ' ']]])(
    '%j',
    async (args) => {
      const spawned = await runOperatorCli(target, args);
      expect(spawned).toEqual(await runOperatorInProcess(target, args));
      expect(spawned.code).toBe(2);
    },
  );
});
