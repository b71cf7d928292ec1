import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperatorInProcess } from '../../testing/cli-in-process.js';
import { type Deployment, deploy } from '../../testing/harness.js';
import {
  addMembers,
  plantCalls,
  runOperatorCli,
  sqliteBackend,
  waitForDecisions,
} from '../../testing/operator-cli.js';

const sqlite = await sqliteBackend();
/** The command run in this process, as cli.ts runs it (see runOperatorInProcess). */
const airlock = (d: Deployment, args: string[], token: string) =>
  runOperatorInProcess(d, args, { token });

// The last case starts the CLI in a child process: slow on a loaded machine, so a wide bound.
describe('airlock decisions binds a decision to the row version the operator saw', {
  timeout: 180_000,
}, () => {
  let d: Deployment;
  let dir: string;
  let runId: string;
  let key: string;
  const members: string[] = [];

  beforeAll(async () => {
    d = await deploy(sqlite);
    dir = mkdtempSync(join(tmpdir(), 'airlock-decisions-version-'));
    members.push(...(await addMembers(d, ['ana', 'bo'])).map((member) => member.token));
    const policy = join(dir, 'policy.json');
    writeFileSync(policy, JSON.stringify({ rules: [{ required: 2 }] }));
    expect((await airlock(d, ['approvals', 'set', '--file', policy], d.tokens.member)).code).toBe(
      0,
    );
    runId = await plantCalls(d, [{ name: 'bash', input: { command: 'rm -rf build' }, id: 'c1' }]);
    await waitForDecisions(d, 1);
    key = (await d.member.get(`${d.ws}/decisions`)).body.decisions[0].key;
  });
  afterAll(async () => {
    await d.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses B's approve of the input A edited after B read the row", async () => {
    const [ana, bo] = members as [string, string];
    const seen = (await d.member.get(`${d.ws}/runs/${runId}/tasks/${key}`)).body.version as string;
    const listed = await airlock(d, ['decisions', 'list'], bo);
    expect(listed.stdout).toContain(`version ${seen}`);
    const shown = await airlock(d, ['decisions', 'show', runId, key], bo);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`version ${seen}`);
    expect(shown.stdout).toContain('rm -rf build');
    expect(shown.stdout).toContain(`--version ${seen}`);

    const edited = await airlock(
      d,
      ['decisions', 'approve', runId, key, '--version', seen, '--input', '{"command":"rm -rf /"}'],
      ana,
    );
    expect(edited.code).toBe(0);
    expect(edited.stdout).toContain('1 of 2 approvals');

    const stale = await airlock(d, ['decisions', 'approve', runId, key, '--version', seen], bo);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('version_mismatch');
    const denied = await airlock(d, ['decisions', 'deny', runId, key, '--version', seen], bo);
    expect(denied.stderr).toContain('version_mismatch');
    const row = (await d.member.get(`${d.ws}/runs/${runId}/tasks/${key}`)).body;
    expect(row.state).toBe('needs_approval');

    const again = await airlock(d, ['decisions', 'show', runId, key, '--json'], bo);
    const current = JSON.parse(again.stdout).version as string;
    expect(current).not.toBe(seen);
    expect(again.stdout).toContain('rm -rf /');
    const bound = await airlock(d, ['decisions', 'approve', runId, key, '--version', current], bo);
    expect(bound.code).toBe(0);
    expect(bound.stdout).toContain(`approved ${runId} ${key}`);
  });

  it('refuses an empty --version as a usage error', async () => {
    const empty = await airlock(
      d,
      ['decisions', 'approve', runId, key, '--version', ''],
      members[0]!,
    );
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('--version');
  });

  // The real CLI in a child process prints what the command printed in-process (the cases
  // above run it in-process, as cli.ts runs it: testing/cli-in-process.ts).
  it('the spawned CLI prints what the command prints in-process', async () => {
    const args = ['decisions', 'list'];
    const spawned = await runOperatorCli(d, args, { token: d.tokens.member });
    expect(spawned).toEqual(await runOperatorInProcess(d, args, { token: d.tokens.member }));
    expect(spawned.code).toBe(0);
  });
});
