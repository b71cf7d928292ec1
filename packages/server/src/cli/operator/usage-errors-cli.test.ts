import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperatorInProcess } from '../../testing/cli-in-process.js';
import { type Deployment, deploy } from '../../testing/harness.js';
import { plantCalls, runOperatorCli, sqliteBackend } from '../../testing/operator-cli.js';

const sqlite = await sqliteBackend();

// The commands run in this process (runOperatorInProcess), as cli.ts runs them; the cases that
// start the CLI in a child process prove that wiring: the exit code, stderr alone, no stack.
describe('the operator CLI refuses a command line it would misread, exit 2', {
  timeout: 180_000,
}, () => {
  let d: Deployment;
  let runId: string;
  let key: string;

  beforeAll(async () => {
    d = await deploy(sqlite);
    runId = await plantCalls(d, [{ name: 'bash', input: { command: 'ls' }, id: 'c1' }]);
    key = (await d.member.get(`${d.ws}/decisions`)).body.decisions[0].key;
  });
  afterAll(async () => {
    await d?.close();
  });

  // What Number() or Date.parse would have read as some number or date.
  it.each([
    [
      ['audit', 'export', '--after', '1e3'],
      'airlock audit export: --after wants a sequence number',
    ],
    [['audit', 'export', '--after', '0x10'], 'airlock audit export: --after wants'],
    [['audit', 'export', '--after', ''], 'airlock audit export: --after wants'],
    [['audit', 'export', '--after', ' 5'], 'airlock audit export: --after wants'],
    [['audit', 'export', '--since', '5'], 'airlock: --since wants an ISO time or an age'],
    [['audit', 'export', '--since=-1'], 'a number needs its unit'],
    [['approvals', 'set', '--version', '', '--file', 'missing.json'], 'approvals set: --version'],
    [
      ['approvals', 'set', '--version', '1e3', '--file', 'missing.json'],
      'approvals set: --version',
    ],
    [['notifications', 'list', '--limit', '1e3'], 'airlock notifications list: --limit wants'],
    [['notifications', 'list', '--limit', '0x10'], 'notifications list: --limit wants'],
    [['notifications', 'list', '--limit', ''], 'notifications list: --limit wants'],
    [['retention', 'set', '--runs', '1e3'], 'airlock retention set: --runs wants an age'],
    [['retention', 'set', '--audit', '0x10d'], 'airlock retention set: --audit wants an age'],
    [['retention', 'set', '--events='], 'or forever, not an empty value\n'],
    [['audit', 'export', '--since='], 'such as 24h, not an empty value'],
    [['runs', 'list', '--limit', '1e2'], 'airlock runs list: --limit wants a number of rows'],
    [['decisions', 'list', '--limit', '0x10'], 'airlock decisions list: --limit wants'],
  ])('refuses the number in %j', async (args, message) => {
    const refused = await runOperatorInProcess(d, args);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(message);
    expect(refused.stderr).not.toMatch(/\n\s+at /);
  });

  // One helper checks every filter: a value none takes is exit 2 before the kernel is asked.
  it.each([
    [
      ['runs', 'list', '--state', 'bogus'],
      'airlock runs list: --state wants one of running, completed, canceled, failed, not bogus\n',
    ],
    [
      ['notifications', 'list', '--state', 'bogus'],
      'airlock notifications list: --state wants one of pending, delivered, dead, not bogus\n',
    ],
    [
      ['notifications', 'list', '--state='],
      'airlock notifications list: --state wants one of pending, delivered, dead, not an empty value\n',
    ],
    [
      ['notifications', 'list', '--run='],
      'airlock notifications list: --run wants a run id, not an empty value\n',
    ],
    [
      ['audit', 'export', '--run', ''],
      'airlock audit export: --run wants a run id, not an empty value\n',
    ],
  ])('refuses the filter in %j', async (args, message) => {
    const refused = await runOperatorInProcess(d, args);
    expect({ code: refused.code, stderr: refused.stderr, stdout: refused.stdout }).toEqual({
      code: 2,
      stderr: message,
      stdout: '',
    });
  });

  it('takes plain decimal numbers and ISO times', async () => {
    for (const args of [
      ['notifications', 'list', '--limit', '5'],
      ['audit', 'export', '--after', '0', '--since', '2026-01-01'],
      ['runs', 'list', '--limit', '010'],
    ]) {
      const taken = await runOperatorInProcess(d, args);
      expect({ args, code: taken.code, stderr: taken.stderr }).toEqual({
        args,
        code: 0,
        stderr: '',
      });
    }
  });

  it.each([
    [
      ['runs', 'list', 'extra'],
      'airlock runs list: unexpected argument "extra" (it takes no arguments; see airlock runs --help)',
    ],
    [
      ['runs', 'show', 'RUN', 'extra'],
      'airlock runs show: unexpected argument "extra" (it takes <run-id>;',
    ],
    [['decisions', 'list', 'x', 'y'], 'airlock decisions list: unexpected arguments "x" "y"'],
    [['approvals', 'show', 'x'], 'airlock approvals show: unexpected argument "x"'],
    [
      ['tokens', 'revoke', 'a', 'b'],
      'airlock tokens revoke: unexpected argument "b" (it takes <credential-id or token>;',
    ],
    [
      ['overlays', 'trust', 'app', 'x', '--digest', 'd'],
      'airlock overlays trust: unexpected argument "x"',
    ],
    [['apps', 'list', 'x'], 'airlock apps list: unexpected argument "x"'],
    [
      ['notifications', 'redeliver', 'a', 'b'],
      'airlock notifications redeliver: unexpected argument "b"',
    ],
    [['retention', 'get', 'x'], 'airlock retention get: unexpected argument "x"'],
    [['audit', 'export', 'x'], 'airlock audit export: unexpected argument "x"'],
  ])('refuses an argument too many in %j', async (args, message) => {
    const refused = await runOperatorInProcess(d, args);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(message);
    expect(refused.stderr).toMatch(/; see airlock \w+ --help\)\n$/);
  });

  it.each([
    [
      ['runs', 'show', 'RUN', '--state', 'running'],
      'airlock runs show: --state is not an option of show (see airlock runs --help)',
    ],
    [
      ['decisions', 'list', '--reason', 'x'],
      'airlock decisions list: --reason is not an option of list',
    ],
    [
      ['decisions', 'approve', 'RUN', 'T', '--content', 'x'],
      'airlock decisions approve: --content is not an option of approve',
    ],
    [['tokens', 'list', '--kind', 'agent'], 'airlock tokens list: --kind is not an option of list'],
    [
      ['retention', 'get', '--runs', '30d'],
      'airlock retention get: --runs is not an option of get',
    ],
    [
      ['runs', 'list', '--kind', 'agent'],
      'airlock runs: unknown option --kind (see airlock runs --help)',
    ],
    [['runs', 'list', '--limit'], 'airlock runs: --limit needs a value (see airlock runs --help)'],
    [
      ['decisions', 'list', '--limit', '-1'],
      'airlock decisions: --limit takes a value that starts with a dash only as --limit=VALUE (see airlock decisions --help)',
    ],
  ])('refuses a flag the verb does not take in %j', async (args, message) => {
    const refused = await runOperatorInProcess(d, args);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(message);
  });

  it('refuses flags that would leave one of them unread', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-usage-'));
    const file = join(dir, 'overlay.json');
    writeFileSync(file, JSON.stringify([{ ruleSetId: 'ops', rules: [] }]));
    const before = (await d.member.get(`${d.ws}/overlays/project/${d.appId}`)).body.digest;
    const load = await runOperatorInProcess(d, [
      'overlays',
      'load',
      d.appId,
      '--repo',
      dir,
      '--file',
      file,
    ]);
    expect(load.code).toBe(2);
    expect(load.stderr).toContain(
      'airlock overlays load: give --repo <dir> or --file <path>, not both',
    );
    expect((await d.member.get(`${d.ws}/overlays/project/${d.appId}`)).body.digest).toBe(before);
    const answer = await runOperatorInProcess(d, [
      'decisions',
      'answer',
      runId,
      key,
      '--content',
      'yes',
      '--decline',
    ]);
    expect(answer.code).toBe(2);
    expect(answer.stderr).toContain('airlock decisions answer: give --content <text> or --decline');
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    [['audit', 'exprot', '--json'], 'airlock audit: unknown verb "exprot" (export)'],
    [['retention', 'show', '--json'], 'airlock retention: unknown verb "show" (get, set)'],
    [['runs', 'lst', '--json'], 'airlock runs: unknown verb "lst" (list, show, stop)'],
    // A token pasted where the verb goes is not printed into scrollback and CI logs.
    [
      ['runs', 'alk_member_0123456789abcdef', '--json'],
      'airlock runs: unknown verb (not repeated here: it may be a secret) (list, show, stop)',
    ],
    [
      ['tokens', 'alk_agent_0123456789abcdef', '--json'],
      'airlock tokens: unknown verb (not repeated here: it may be a secret) (create, list, revoke, label)',
    ],
  ])('names the unknown verb in %j on stderr, nothing on stdout', async (args, message) => {
    const refused = await runOperatorInProcess(d, args);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(`${message}\n`);
  });

  it('changes nothing when it refuses: an approve with an argument too many leaves the call parked', async () => {
    const refused = await runOperatorInProcess(d, ['decisions', 'approve', runId, key, 'now']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('unexpected argument "now"');
    const task = await d.member.get(`${d.ws}/runs/${runId}/tasks/${key}`);
    expect(task.body.state).toBe('needs_approval');
  });

  it('still prints the help with --help, whatever else the line holds', async () => {
    const help = await runOperatorInProcess(d, ['runs', 'list', 'extra', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('airlock runs list');
  });

  // The real CLI in a child process: a refusal of each kind above leaves it as the in-process
  // command told it, exit 2, on stderr alone, no stack; the help on stdout, exit 0.
  it.each([
    [['audit', 'export', '--after', '1e3'], 2],
    [['runs', 'list', '--state', 'bogus'], 2],
    [['runs', 'show', 'RUN', 'extra'], 2],
    [['decisions', 'list', '--reason', 'x'], 2],
    [['runs', 'alk_member_0123456789abcdef', '--json'], 2],
    [['runs', 'list', 'extra', '--help'], 0],
  ])('the spawned CLI says %j as the command does in-process', async (args, code) => {
    const [spawned, inProcess] = [
      await runOperatorCli(d, args),
      await runOperatorInProcess(d, args),
    ];
    expect(spawned).toEqual(inProcess);
    expect(spawned.code).toBe(code);
    expect(spawned.stderr).not.toMatch(/\n\s+at /);
    expect(spawned.stderr).not.toContain('alk_member_');
  });
});
