import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperatorInProcess } from '../../testing/cli-in-process.js';
import { type Deployment, deploy } from '../../testing/harness.js';
import { runOperatorCli, sqliteBackend } from '../../testing/operator-cli.js';

const sqlite = await sqliteBackend();
/** The command run in this process, as cli.ts runs it (see runOperatorInProcess). */
const airlock = (d: Deployment, args: string[]) => runOperatorInProcess(d, args);

const GROUPS = [{ ruleSetId: 'supervised', rules: [{ verdict: 'allow', targets: ['src/**'] }] }];

// The last case starts the CLI in a child process: slow on a loaded machine, so a wide bound.
describe('airlock overlays against a running kernel', { timeout: 180_000 }, () => {
  let d: Deployment;
  let repo: string;

  beforeAll(async () => {
    d = await deploy(sqlite);
    repo = mkdtempSync(join(tmpdir(), 'airlock-overlays-'));
    mkdirSync(join(repo, '.airlock'));
    writeFileSync(join(repo, '.airlock/permissions.json'), JSON.stringify(GROUPS));
  });
  afterAll(async () => {
    await d?.close();
  });

  it('loads the project document from .airlock/permissions.json, untrusted, then trusts it', async () => {
    const loaded = await airlock(d, ['overlays', 'load', d.appId, '--repo', repo, '--json']);
    expect(loaded.stderr).toBe('');
    expect(loaded.code).toBe(0);
    const view = JSON.parse(loaded.stdout);
    expect(view).toMatchObject({ scope: 'project', groups: GROUPS, active: false });
    const shown = await airlock(d, ['overlays', 'show', 'project', d.appId]);
    expect(shown.stdout).toContain('not trusted (inactive)');
    const trusted = await airlock(d, ['overlays', 'trust', d.appId, '--digest', view.digest]);
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toContain('trusted (active)');
    // With --trust, a load trusts exactly the digest it wrote.
    const again = await airlock(d, ['overlays', 'load', d.appId, '--repo', repo, '--trust']);
    expect(again.stdout).toContain('trusted (active)');
  });

  it('replace names the digest it read; a stale one is refused and changes nothing', async () => {
    const file = join(repo, 'mine.json');
    writeFileSync(file, JSON.stringify({ groups: [{ ruleSetId: 'planning', rules: [] }] }));
    const current = JSON.parse(
      (await airlock(d, ['overlays', 'show', 'user', 'me', '--json'])).stdout,
    );
    const ok = await airlock(d, [
      'overlays',
      'replace',
      'user',
      'me',
      '--file',
      file,
      '--digest',
      current.digest,
    ]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('planning: 0 rule(s)');
    const stale = await airlock(d, [
      'overlays',
      'replace',
      'user',
      'me',
      '--file',
      file,
      '--digest',
      current.digest,
    ]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('stale_digest');
  });

  it('refuses an invalid file with its pointers before calling the kernel', async () => {
    const file = join(repo, 'bad.json');
    writeFileSync(
      file,
      JSON.stringify([{ ruleSetId: 'x', rules: [{ verdict: 'allow', targets: ['/etc'] }] }]),
    );
    const bad = await airlock(d, ['overlays', 'load', d.appId, '--file', file]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(
      / is not a valid overlay document:\n {2}\/0\/rules\/0\/targets\/0: .+ \(\w+\)\n/,
    );
    writeFileSync(file, '[{"ruleSetId": sk-live-SECRET123}]');
    const broken = await airlock(d, ['overlays', 'load', d.appId, '--file', file]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/^airlock overlays: .* is not JSON \(/);
    expect(broken.stderr).not.toContain('SECRET');
  });

  // The real CLI in a child process prints what the command printed in-process (the cases
  // above run it in-process, as cli.ts runs it: testing/cli-in-process.ts).
  it('the spawned CLI prints what the command prints in-process', async () => {
    const args = ['overlays', 'show', 'project', d.appId];
    const spawned = await runOperatorCli(d, args);
    expect(spawned).toEqual(await runOperatorInProcess(d, args));
  });
});
