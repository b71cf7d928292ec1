import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperatorInProcess } from '../../testing/cli-in-process.js';
import { type Deployment, deploy, waitFor } from '../../testing/harness.js';
import { addMembers, runOperatorCli, sqliteBackend } from '../../testing/operator-cli.js';

const sqlite = await sqliteBackend();
/** The command run in this process, as cli.ts runs it (see runOperatorInProcess). */
const airlock = (d: Deployment, args: string[], token: string) =>
  runOperatorInProcess(d, args, { token });

// The last case starts the CLI in a child process: slow on a loaded machine, so a wide bound.
describe('airlock approvals, tokens label and decisions progress', { timeout: 180_000 }, () => {
  let d: Deployment;
  let dir: string;
  const members: { id: string; token: string }[] = [];

  beforeAll(async () => {
    d = await deploy(sqlite);
    dir = mkdtempSync(join(tmpdir(), 'airlock-approvals-cli-'));
    members.push(...(await addMembers(d, ['member', 'member'])));
  });
  afterAll(async () => {
    await d.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says what applies when no policy is set, and --json stays the answer', async () => {
    const shown = await airlock(d, ['approvals', 'show'], d.tokens.member);
    expect(shown).toMatchObject({ code: 0, stderr: '' });
    // Sentences a person reads, not the empty policy document `{}`.
    expect(shown.stdout.split('\n')).not.toContain('{}');
    expect(shown.stdout).toContain('no approval policy is set');
    expect(shown.stdout).toContain('airlock approvals set --file <policy.json>');
    const json = await airlock(d, ['approvals', 'show', '--json'], d.tokens.member);
    expect(JSON.parse(json.stdout)).toEqual({
      policy: {},
      version: 0,
      updated_by: null,
      updated_at: null,
    });
  });

  it('refuses an invalid file before sending it, then sets and shows a policy', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ rules: [{ required: 0 }] }));
    const refused = await airlock(d, ['approvals', 'set', '--file', bad], d.tokens.member);
    expect(refused.code).toBe(1);
    // One problem a line, as a line: not escaped into one line that reads "\n  /rules...".
    expect(refused.stderr).toMatch(/ is not a valid policy:\n {2}\/rules\/0\/required: /);
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{"groups": {"ops": [sk-live-SECRET123]}}');
    const notJson = await airlock(d, ['approvals', 'set', '--file', broken], d.tokens.member);
    expect(notJson).toMatchObject({
      code: 2,
      stderr: `airlock approvals set: ${broken} is not JSON (an unexpected "s")\n`,
    });
    const good = join(dir, 'policy.json');
    writeFileSync(
      good,
      JSON.stringify({
        rules: [{ actions: ['destructive'], required: 2 }],
        no_self_approval: true,
      }),
    );
    const set = await airlock(
      d,
      ['approvals', 'set', '--file', good, '--version', '0'],
      d.tokens.member,
    );
    expect(set.code).toBe(0);
    expect(set.stdout).toContain('approval policy version 1');
    const shown = await airlock(d, ['approvals', 'show'], d.tokens.member);
    expect(shown.stdout).toContain('1 rule(s), no_self_approval true');
    // The policy is printed as indented JSON over several lines, not one line of escaped \n.
    expect(shown.stdout).not.toContain('\\n');
    expect(shown.stdout.split('\n')).toContain('  "no_self_approval": true');
  });

  it('names a member, and decisions list shows "1 of 2 approvals" by name', async () => {
    const [ana, bo] = members as [{ id: string; token: string }, { id: string; token: string }];
    const labeled = await airlock(d, ['tokens', 'label', ana.id, 'Ana Lima'], d.tokens.member);
    expect(labeled.code).toBe(0);
    expect(labeled.stdout).toContain('"Ana Lima"');
    const created = await d.agent.post(`${d.ws}/runs`, {
      approval_mode: 'ask',
      provider: {
        kind: 'scripted',
        rounds: [
          { tool_calls: [{ name: 'bash', input: { command: 'rm -rf build' } }] },
          { final: 'f' },
        ],
      },
    });
    const runId = created.body.id as string;
    await waitFor(
      async () =>
        (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body.state === 'needs_approval',
    );
    const first = await airlock(d, ['decisions', 'approve', runId, 't1'], ana.token);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('approval recorded');
    expect(first.stdout).toContain('1 of 2 approvals (Ana Lima)');
    const listed = await airlock(d, ['decisions', 'list'], bo.token);
    expect(listed.stdout).toContain('1 of 2 approvals (Ana Lima)');
    const refused = await airlock(
      d,
      ['decisions', 'approve', runId, 't1', '--input', '{"command":'],
      bo.token,
    );
    expect(refused.code).toBe(2);
    const second = await airlock(
      d,
      ['decisions', 'approve', runId, 't1', '--input', '{"command":"rm -rf build/cache"}'],
      bo.token,
    );
    expect(second.code).toBe(0);
    // The edit starts the count again, and under no_self_approval the edited call is Bo's own:
    // kept, his approval not counted, it waits for another member.
    expect(second.stdout).toContain('your changes to');
    expect(second.stdout).toContain('0 of 2 approvals');
  });

  it('set warns of a rule the members cannot meet, and lists the waiting calls it approves', async () => {
    const strict = join(dir, 'strict.json');
    writeFileSync(strict, JSON.stringify({ rules: [{ actions: ['destructive'], required: 5 }] }));
    const warned = await airlock(d, ['approvals', 'set', '--file', strict], d.tokens.member);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toContain('warning: approval rule 0 needs 5 approvals; 3 approvers left');
    const two = join(dir, 'two.json');
    writeFileSync(two, JSON.stringify({ rules: [{ actions: ['destructive'], required: 2 }] }));
    expect((await airlock(d, ['approvals', 'set', '--file', two], d.tokens.member)).code).toBe(0);
    const created = await d.agent.post(`${d.ws}/runs`, {
      approval_mode: 'ask',
      provider: {
        kind: 'scripted',
        rounds: [
          { tool_calls: [{ name: 'bash', input: { command: 'rm -rf dist' } }] },
          { final: 'f' },
        ],
      },
    });
    const runId = created.body.id as string;
    const task = `${d.ws}/runs/${runId}/tasks/t1`;
    await waitFor(async () => (await d.member.get(task)).body.state === 'needs_approval');
    const [ana] = members as [{ id: string; token: string }];
    expect((await airlock(d, ['decisions', 'approve', runId, 't1'], ana.token)).code).toBe(0);
    const one = join(dir, 'one.json');
    writeFileSync(one, JSON.stringify({ rules: [{ actions: ['destructive'], required: 1 }] }));
    const lowered = await airlock(d, ['approvals', 'set', '--file', one], d.tokens.member);
    expect(lowered.code).toBe(0);
    expect(lowered.stderr).toBe('');
    // Bo's edited call of the test above is met too now that no_self_approval is off.
    expect(lowered.stdout).toMatch(/approved \d+ waiting calls? this policy already meets:/);
    expect(lowered.stdout).toContain(`  ${runId} t1`);
    expect((await d.member.get(task)).body.state).toBe('runnable');
  });

  // The real CLI in a child process prints what the command printed in-process (the cases
  // above run it in-process, as cli.ts runs it: testing/cli-in-process.ts).
  it('the spawned CLI prints what the command prints in-process', async () => {
    const args = ['approvals', 'show'];
    const spawned = await runOperatorCli(d, args, { token: d.tokens.member });
    expect(spawned).toEqual(await runOperatorInProcess(d, args, { token: d.tokens.member }));
    expect(spawned.code).toBe(0);
  });
});
