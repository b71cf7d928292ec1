import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperatorInProcess } from '../../testing/cli-in-process.js';
import { type Deployment, deploy } from '../../testing/harness.js';
import { runOperatorCli, sqliteBackend, waitForDecisions } from '../../testing/operator-cli.js';

const sqlite = await sqliteBackend();
/** The command run in this process, as cli.ts runs it (see runOperatorInProcess). */
const airlock = (d: Deployment, args: string[], token?: string) =>
  runOperatorInProcess(d, args, token === undefined ? {} : { token });
/** The real CLI in a child process: the cases using it prove the wiring (exit codes, no stack). */
const spawned = (d: Deployment, args: string[], token?: string) =>
  runOperatorCli(d, args, token === undefined ? {} : { token });

// Some steps start the CLI in a child process: slow on a loaded machine, so a wide bound.
describe('operator CLI against a running kernel', { timeout: 180_000 }, () => {
  let d: Deployment;
  let runId: string;

  beforeAll(async () => {
    d = await deploy(sqlite);
    const created = await d.member.post(`${d.ws}/runs`, {
      approval_mode: 'ask',
      input: 'clean up',
      provider: {
        kind: 'scripted',
        rounds: [
          {
            tool_calls: [
              { name: 'bash', input: { command: 'rm -rf build' } },
              { name: 'bash', input: { command: 'rm -rf dist' } },
            ],
          },
          { final: 'done' },
        ],
      },
    });
    expect(created.status).toBe(201);
    runId = created.body.id;
    await waitForDecisions(d, 2);
  });

  afterAll(async () => {
    await d?.close();
  });

  it('lists waiting decisions as text and as JSON', async () => {
    const text = await airlock(d, ['decisions', 'list']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('needs_approval');
    expect(text.stdout).toContain('rm -rf build');
    const json = await airlock(d, ['decisions', 'list', '--json']);
    expect(JSON.parse(json.stdout).decisions.map((row: { key: string }) => row.key)).toHaveLength(
      2,
    );
  });

  it('approves one call and denies the other with a reason; a second verb is a conflict', async () => {
    const listed = JSON.parse((await airlock(d, ['decisions', 'list', '--json'])).stdout)
      .decisions as { key: string }[];
    const [first, second] = listed.map((row) => row.key);
    expect((await airlock(d, ['decisions', 'approve', runId, first!])).stdout).toContain(
      `approved ${runId} ${first}`,
    );
    const denied = await airlock(d, ['decisions', 'deny', runId, second!, '--reason', 'keep dist']);
    expect(denied.code).toBe(0);
    const again = await spawned(d, ['decisions', 'approve', runId, second!]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^airlock: \S+: /);
    expect(again.stderr).not.toMatch(/\n\s+at /);
    const task = await d.member.get(`${d.ws}/runs/${runId}/tasks/${second}`);
    expect(task.body.state).toBe('failed');
    expect(task.body.error_detail ?? task.body.error?.detail).toContain('keep dist');
  });

  it('lists, shows and stops runs', async () => {
    const listed = await airlock(d, ['runs', 'list', '--json']);
    expect(JSON.parse(listed.stdout).runs.map((r: { id: string }) => r.id)).toContain(runId);
    const shown = await airlock(d, ['runs', 'show', runId]);
    expect(shown.stdout).toContain(runId);
    expect(shown.stdout).toContain('bash');
    expect(shown.stdout).toContain('approval_denied: keep dist');
    const stopped = await airlock(d, ['runs', 'stop', runId, '--json']);
    expect(stopped.code).toBe(0);
    const after = await d.member.get(`${d.ws}/runs/${runId}`);
    expect(after.body.state).not.toBe('running');
  });

  it("exports one run's decisions as the very JSON lines the REST route answers", async () => {
    const exported = await airlock(d, ['audit', 'export', '--run', runId]);
    expect(exported.code).toBe(0);
    const raw = await fetch(`${d.url}${d.ws}/runs/${runId}/audit`, {
      headers: { authorization: `Bearer ${d.tokens.member}` },
    });
    expect(exported.stdout).toBe(await raw.text());
    const lines = exported.stdout.split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ run_id: runId });
  });

  it('refuses an --after that is not plain decimal digits, naming the flag', async () => {
    for (const after of ['1e3', '0x10', '', ' 5', '-1']) {
      const exported = await airlock(d, ['audit', 'export', '--run', runId, `--after=${after}`]);
      expect(exported.code).toBe(2);
      expect(exported.stdout).toBe('');
      expect(exported.stderr).toContain(`airlock audit export: --after wants a sequence number`);
    }
  });

  it('reads and sets retention, keeping the windows a set leaves out', async () => {
    const before = await airlock(d, ['retention', 'get']);
    expect(before.code).toBe(0);
    expect(before.stdout).toContain('events  forever');
    const set = await airlock(d, ['retention', 'set', '--events', '12w', '--json']);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({
      events_days: 84,
      runs_days: null,
      audit_days: null,
    });
    const again = await airlock(d, ['retention', 'set', '--audit', '1y']);
    expect(again.stdout).toContain('events  84 days');
    expect(again.stdout).toContain('audit   365 days');
    const bad = await airlock(d, ['retention', 'set', '--runs', '0']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^airlock retention set: --runs wants an age/);
  });

  it('creates a token through the kernel that works, and revokes it so it stops working', async () => {
    const created = await airlock(d, [
      'tokens',
      'create',
      '--kind',
      'member',
      '--label',
      'ops',
      '--json',
    ]);
    expect(created.code).toBe(0);
    const made = JSON.parse(created.stdout) as {
      token: string;
      credential_id: string;
      kind: string;
    };
    expect(made.kind).toBe('member');
    const listed = await airlock(d, ['runs', 'list'], made.token);
    expect(listed.code).toBe(0);
    const executor = await airlock(d, ['tokens', 'create', '--kind', 'executor']);
    // The token alone on stdout (`T=$(airlock tokens create …)`); what it is, on stderr.
    expect(executor.stdout).toMatch(/^alk_executor_\S+\n$/);
    expect(executor.stderr).toMatch(/executor credential cred_\S+.*; shown once/);
    const revoked = await airlock(d, ['tokens', 'revoke', made.credential_id]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`revoked member credential ${made.credential_id}`);
    const after = await airlock(d, ['runs', 'list'], made.token);
    expect(after.code).toBe(1);
    expect(after.stderr).toMatch(/unauthenticated/);
  });

  it('refuses to create a token of an application outside the workspace', async () => {
    const refused = await airlock(d, [
      'tokens',
      'create',
      '--kind',
      'agent',
      '--application',
      'app_nope',
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('agent_application_not_found');
    const badKind = await airlock(d, ['tokens', 'create', '--kind', 'root']);
    expect(badKind.code).toBe(2);
  });

  it('refuses a wrong-plane token with the server code and no stack', async () => {
    const refused = await spawned(d, ['decisions', 'list'], d.tokens.executor);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/forbidden|wrong_plane/);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('creates and lists agent applications and a workspace-level member token', async () => {
    const made = await airlock(d, ['apps', 'create', 'second', '--json']);
    expect(made.code).toBe(0);
    const app = JSON.parse(made.stdout) as { id: string; name: string };
    expect(app.name).toBe('second');
    const listed = await airlock(d, ['apps', 'list']);
    expect(listed.stdout).toMatch(new RegExp(`${app.id}\tactive\tsecond`));
    const operator = await airlock(d, [
      'tokens',
      'create',
      '--kind',
      'member',
      '--workspace-level',
      '--label',
      'operator',
      '--json',
    ]);
    expect(operator.code).toBe(0);
    const credential = JSON.parse(operator.stdout) as {
      credential_id: string;
      agent_application_id: string | null;
      token: string;
    };
    expect(credential.agent_application_id).toBeNull();
    const tokens = await airlock(d, ['tokens', 'list'], credential.token);
    expect(tokens.code).toBe(0);
    expect(tokens.stdout).toContain(
      `${credential.credential_id}\tmember\tapprover\tworkspace\tactive\toperator`,
    );
    expect(tokens.stdout).not.toContain(credential.token);
    const wrong = await airlock(d, ['tokens', 'create', '--kind', 'agent', '--workspace-level']);
    expect(wrong.code).toBe(2);

    // A removed application's credentials are refused from then on, and listed so.
    const ofApp = await airlock(d, [
      'tokens',
      'create',
      '--kind',
      'executor',
      '--application',
      app.id,
      '--json',
    ]);
    const appToken = JSON.parse(ofApp.stdout) as { credential_id: string };
    expect((await airlock(d, ['apps', 'remove', app.id])).code).toBe(0);
    const active = await airlock(d, ['tokens', 'list'], credential.token);
    expect(active.stdout).not.toContain(appToken.credential_id);
    const all = await airlock(d, ['tokens', 'list', '--all'], credential.token);
    expect(all.stdout).toContain(`${appToken.credential_id}\texecutor\t-\t${app.id}\trevoked`);
  });

  it('explains missing connection settings and bad usage with exit 2', async () => {
    const noToken = await spawned(d, ['runs', 'list'], '');
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('AIRLOCK_TOKEN');
    const badVerb = await airlock(d, ['decisions', 'frobnicate']);
    expect(badVerb.code).toBe(2);
    const badFlag = await airlock(d, ['runs', 'list', '--bogus']);
    expect(badFlag.code).toBe(2);
  });
});
