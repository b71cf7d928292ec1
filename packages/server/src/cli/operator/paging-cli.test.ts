import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeDecisionCursor } from '../../api/page-cursors.js';
import { runOperatorInProcess } from '../../testing/cli-in-process.js';
import { type Deployment, deploy } from '../../testing/harness.js';
import {
  operatorCliEnv,
  runOperatorCli,
  sqliteBackend,
  waitForDecisions,
} from '../../testing/operator-cli.js';

const sqlite = await sqliteBackend();

// The commands run in this process (runOperatorInProcess), as cli.ts runs them; the last cases
// start the CLI in a child process to prove that wiring. Slow on a loaded machine: a wide bound.
describe('airlock decisions list and runs list page, and say when more exist', {
  timeout: 180_000,
}, () => {
  let d: Deployment;
  const runIds: string[] = [];

  beforeAll(async () => {
    d = await deploy(sqlite);
    for (let n = 0; n < 3; n += 1) {
      const created = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'ask',
        provider: {
          kind: 'scripted',
          rounds: [{ tool_calls: [{ name: 'deploy', input: { n } }] }, { final: 'f' }],
        },
      });
      runIds.push(created.body.id);
    }
    await waitForDecisions(d, 3);
  });
  afterAll(async () => {
    await d.close();
  });

  it('shows a page of decisions, how many wait in all, and how to read the next', async () => {
    const first = await runOperatorInProcess(d, ['decisions', 'list', '--limit', '2']);
    expect(first.code).toBe(0);
    expect(first.stdout.match(/needs_approval/g)).toHaveLength(2);
    const hint = /showing 2 of 3; next page: airlock decisions list --limit 2 --cursor (\S+)/.exec(
      first.stdout,
    );
    expect(hint).not.toBeNull();
    const next = await runOperatorInProcess(d, [
      'decisions',
      'list',
      '--limit',
      '2',
      '--cursor',
      hint![1]!,
    ]);
    expect(next.stdout.match(/needs_approval/g)).toHaveLength(1);
    expect(next.stdout).not.toContain('next page');
    const all = await runOperatorInProcess(d, [
      'decisions',
      'list',
      '--limit',
      '2',
      '--all',
      '--json',
    ]);
    const body = JSON.parse(all.stdout);
    expect(body.decisions).toHaveLength(3);
    expect(body.next_cursor).toBeNull();
  });

  it('offers no next page when the page it shows holds the last rows', async () => {
    const whole = await runOperatorInProcess(d, ['decisions', 'list', '--limit', '3']);
    expect(whole.stdout.match(/needs_approval/g)).toHaveLength(3);
    expect(whole.stdout).not.toContain('next page');
    const json = await runOperatorInProcess(d, ['decisions', 'list', '--limit', '3', '--json']);
    expect(JSON.parse(json.stdout).next_cursor).toBeNull();
    // A cursor after the last row (the kernel hands none): its page is empty, yet three wait.
    const rows = (await d.member.get(`${d.ws}/decisions?limit=3`)).body.decisions;
    const past = encodeDecisionCursor(rows[rows.length - 1]);
    const empty = await runOperatorInProcess(d, ['decisions', 'list', '--cursor', past]);
    expect(empty.code).toBe(0);
    expect(empty.stdout).not.toContain('nothing is waiting');
    expect(empty.stdout).toContain('no more decisions after this cursor (3 wait in all');
  });

  it('shows a page of runs, says more exist and how to read the next', async () => {
    const page = await runOperatorInProcess(d, ['runs', 'list', '--limit', '2']);
    expect(page.code).toBe(0);
    const shown = page.stdout.match(/^run_\S+/gm);
    expect(shown).toHaveLength(2);
    const hint = /more runs exist, next page: airlock runs list --limit 2 --cursor (\S+)/.exec(
      page.stdout,
    );
    expect(hint).not.toBeNull();
    const next = await runOperatorInProcess(d, [
      'runs',
      'list',
      '--limit',
      '2',
      '--cursor',
      hint![1]!,
    ]);
    const rest = next.stdout.match(/^run_\S+/gm);
    expect(rest).toHaveLength(1);
    expect(next.stdout).not.toContain('more runs exist');
    expect([...shown!, ...rest!].sort()).toEqual([...runIds].sort());
    const all = await runOperatorInProcess(d, ['runs', 'list', '--limit', '1', '--all', '--json']);
    const body = JSON.parse(all.stdout);
    expect(body.runs.map((run: { id: string }) => run.id)).toEqual([...shown!, ...rest!]);
    expect(body.next_cursor).toBeNull();
    const whole = await runOperatorInProcess(d, ['runs', 'list', '--limit', '3']);
    expect(whole.stdout.match(/^run_/gm)).toHaveLength(3);
    expect(whole.stdout).not.toContain('more runs exist');
  });

  it('carries --url and --workspace given as flags into the commands it prints', async () => {
    // The environment names another kernel and workspace: a printed command without the flags
    // would read a page of those with this kernel's cursor.
    const elsewhere = {
      ...operatorCliEnv(d),
      AIRLOCK_URL: 'http://127.0.0.1:9',
      AIRLOCK_WORKSPACE: 'ws_elsewhere',
    };
    const airlock = (args: string[]) => runOperatorInProcess(d, args, { env: elsewhere });
    const connection = ['--url', d.url, '--workspace', d.workspaceId];
    for (const list of ['runs', 'decisions']) {
      const first = await airlock([list, 'list', '--limit', '2', ...connection]);
      expect(first.code).toBe(0);
      const hint = / next page: (airlock .*) \(or --all\)$/m.exec(first.stdout);
      expect(hint?.[1]).toContain(
        `airlock ${list} list ${connection.join(' ')} --limit 2 --cursor `,
      );
      const next = await airlock(hint![1]!.split(' ').slice(1));
      expect(next.code).toBe(0);
      expect(next.stdout.match(/^run_\S+/gm)).toHaveLength(1);
    }
    const shown = await airlock(['decisions', 'show', runIds[0]!, 't1', ...connection]);
    expect(shown.stdout).toContain(
      `approve: airlock decisions approve ${connection.join(' ')} ${runIds[0]} t1 --version `,
    );
  });

  it('refuses --cursor with --all, and a cursor it did not make', async () => {
    for (const list of ['runs', 'decisions']) {
      const both = await runOperatorInProcess(d, [list, 'list', '--cursor', 'abc', '--all']);
      expect(both.code).toBe(2);
      expect(both.stderr).toContain('--cursor or --all');
    }
    const made = await runOperatorInProcess(d, ['runs', 'list', '--cursor', 'bm90LWEtY3Vyc29y']);
    expect(made.code).not.toBe(0);
    expect(made.stderr).toContain('invalid_input');
  });

  it.each([['0'], ['1001'], ['ten'], ['']])(
    'refuses --limit %j as a usage error',
    async (limit) => {
      const refused = await runOperatorInProcess(d, ['decisions', 'list', '--limit', limit]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('--limit');
    },
  );

  // The real CLI in a child process prints what the command printed in-process: a page with its
  // next-page hint, a refused limit (exit 2), a cursor the kernel refuses (exit 1).
  it.each([
    [['decisions', 'list', '--limit', '2']],
    [['decisions', 'list', '--limit', '0']],
    [['runs', 'list', '--cursor', 'bm90LWEtY3Vyc29y']],
  ])('the spawned CLI prints %j as the command does in-process', async (args) => {
    const spawned = await runOperatorCli(d, args);
    expect(spawned).toEqual(await runOperatorInProcess(d, args));
    expect(spawned.stderr).not.toMatch(/\n\s+at /);
  });
});
