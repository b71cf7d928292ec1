import { createClient } from '@airlock/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, scriptedRun, startTestKernel, type TestKernel } from '../support/kernel.js';

/**
 * Issue 24: a contract of `forbidden: [destructive, delete, publish]`,
 * `must_not: [command-prefix:git push]` and `requires_user: [unknown]`,
 * under bypass with every bash call allowed by the declared rules, against
 * a real kernel. Each evasion the classifier now reads is refused, what it
 * cannot read parks, and a read-only probe goes through.
 */
const REFUSED: Record<string, unknown>[] = [
  { command: 'cat <<EOF\n$(rm -rf ~/x)\nEOF' },
  { command: "trap 'rm -rf ~' EXIT" },
  { command: "git -c alias.x='!rm -rf ~' x" },
  { command: "git -c core.sshCommand='rm -rf ~' fetch" },
  { command: "git config --global alias.st '!rm -rf ~'" },
  { command: "ssh -o ProxyCommand='rm -rf ~' host" },
  { command: "tar --to-command='rm -rf ~' -xf a.tar" },
  { command: 'rsync -e \'sh -c "rm -rf ~"\' src/ host:/srv/' },
  { command: "watch -n 5 'rm -rf build'" },
  { command: 'parallel rm ::: -rf build' },
  { command: "vim -c '!rm -rf build' file.txt" },
  { command: ': > app.log' },
  { command: 'cp /dev/null app.log' },
  { command: "sed -i '/secret/d' config.env" },
  { command: 'find . -fprint important.txt' },
  { command: 'git worktree remove --force ../wt' },
  { command: 'docker rmi -f $(docker images -q)' },
  { command: 'crontab -r' },
  { command: 'ls', cmd: 'rm -rf /' },
  { command: 'git status', script: 'git push origin main' },
];
const PARKED: Record<string, unknown>[] = [
  { command: 'vim -c \'call system("rm -rf x")\' file.txt' },
  { command: 'LD_PRELOAD=./evil.so ls' },
];
const GRANTED: Record<string, unknown>[] = [{ command: 'node --version' }, { command: 'pip list' }];

describe('the classifier under an action contract, in a real kernel', () => {
  let kernel: TestKernel;
  beforeAll(async () => {
    kernel = await startTestKernel();
  });
  afterAll(async () => {
    await kernel?.close();
  });

  it('refuses every evasion it reads, parks what it cannot read, grants read-only probes', async () => {
    const runs = createClient({ url: kernel.url, token: kernel.workspace.tokens.member }).workspace(
      kernel.workspace.id,
    ).runs;
    const inputs = [...REFUSED, ...PARKED, ...GRANTED];
    const created = await runs.create({
      ...scriptedRun(
        'bypass',
        [{ tool_calls: inputs.map((input) => ({ name: 'bash', input })) }, { final: 'done' }],
        [{ tool: 'bash', verdict: 'allow' }],
      ),
      action_contract: {
        contract_version: 1,
        authorization: {
          forbidden: ['action:destructive', 'action:delete', 'action:publish'],
          requires_user: ['action:unknown'],
        },
        must_and_must_not: { must_not: ['command-prefix:git push'] },
      },
    });
    const run = runs.run(created.id);
    const tasks = await eventually(
      async () => {
        const listed = await run.tasks();
        return listed.length === inputs.length && listed;
      },
      { what: 'every call to be planted' },
    );
    const states = tasks.map((task) => [task.tool_input, task.state]);
    expect(states).toEqual([
      ...REFUSED.map((input) => [input, 'failed']),
      ...PARKED.map((input) => [input, 'needs_approval']),
      ...GRANTED.map((input) => [input, 'runnable']),
    ]);
    for (const task of tasks.slice(0, REFUSED.length)) {
      expect(task.decision).toMatchObject({ outcome: 'denied', layer: 'action_contract' });
    }
    await run.stop();
  });

  it('reads the fields a tool manifest marks as commands', async () => {
    const runs = createClient({ url: kernel.url, token: kernel.workspace.tokens.member }).workspace(
      kernel.workspace.id,
    ).runs;
    const ci = (steps: string[]) => ({
      name: 'ci',
      input: { steps: steps.map((run) => ({ run })) },
    });
    const created = await runs.create({
      ...scriptedRun(
        'bypass',
        [{ tool_calls: [ci(['ls', 'rm -rf build']), ci(['ls']), ci(['vim -S x.vim'])] }],
        [{ tool: 'ci', verdict: 'allow' }],
      ),
      tool_manifest: [
        {
          name: 'ci',
          input_schema: { type: 'object' },
          risk_traits: ['execute'],
          commands: ['/steps/*/run'],
        },
      ],
      action_contract: {
        contract_version: 1,
        authorization: { forbidden: ['action:delete'], requires_user: ['action:unknown'] },
      },
    });
    const run = runs.run(created.id);
    const tasks = await eventually(
      async () => {
        const listed = await run.tasks();
        return listed.length === 3 && listed;
      },
      { what: 'the three calls to be planted' },
    );
    expect(tasks.map((task) => task.state)).toEqual(['failed', 'runnable', 'needs_approval']);
    expect(tasks[0]!.decision).toMatchObject({ outcome: 'denied', layer: 'action_contract' });
    expect(tasks[2]!.effect_profile).toMatchObject({ action_tags: ['write', 'unknown'] });
    await run.stop();
  });
});
