import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retentionHelp } from '../cli/operator/retention.js';
import { type Deployment, deploy } from '../testing/harness.js';
import { runOperatorCli, sqliteBackend } from '../testing/operator-cli.js';

const sqlite = await sqliteBackend();
const root = mkdtempSync(join(tmpdir(), 'airlock-retention-pass-failure-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * A pruner that keeps failing (its export directory cannot be made) is told by the policy's
 * view and by `airlock retention get`, not only by the log and /metrics; it clears once a
 * pass succeeds. The failure is the kernel's, not of one store: SQLite stands for both.
 */
describe.skipIf(sqlite.skip !== null)(
  'retention.get and a failing pruner',
  { timeout: 120_000 },
  () => {
    let d: Deployment;
    const parent = join(root, 'parent');
    beforeAll(async () => {
      // A file where a folder of the export directory's path should be: mkdir fails, ENOTDIR.
      writeFileSync(parent, '');
      d = await deploy(sqlite, {
        retention: { exportDir: join(parent, 'exports'), intervalMs: 3_600_000 },
      });
      const put = await d.member.put(`${d.ws}/retention`, {
        events_days: null,
        runs_days: 30,
        audit_days: null,
      });
      expect([put.status, put.body.pass_failure]).toEqual([200, null]);
    }, 60_000);
    afterAll(async () => {
      await d?.close();
    });

    it('shows the failing passes over the API and in the CLI, and their end', async () => {
      const pruner = d.airlock.kernel.pruner!;
      await expect(pruner.pruneNow()).rejects.toThrow(/ENOTDIR/);
      await expect(pruner.pruneNow()).rejects.toThrow(/ENOTDIR/);
      const failing = (await d.member.get(`${d.ws}/retention`)).body;
      expect(failing.pass_failure).toEqual({
        passes: pruner.failure!.passes,
        since: pruner.failure!.since,
        code: 'ENOTDIR',
        cause_code: null,
      });
      expect(failing.pass_failure.passes).toBeGreaterThanOrEqual(2);

      const text = await runOperatorCli(d, ['retention', 'get']);
      expect(text.code).toBe(0);
      expect(text.stdout).toContain(
        `pruning FAILING: ${failing.pass_failure.passes} passes in a row since ${new Date(failing.pass_failure.since).toISOString()} (ENOTDIR)`,
      );
      const json = await runOperatorCli(d, ['retention', 'get', '--json']);
      expect(JSON.parse(json.stdout).pass_failure).toEqual(failing.pass_failure);

      rmSync(parent);
      mkdirSync(parent);
      await pruner.pruneNow();
      expect((await d.member.get(`${d.ws}/retention`)).body.pass_failure).toBeNull();
      const cleared = await runOperatorCli(d, ['retention', 'get']);
      expect(cleared.code).toBe(0);
      expect(cleared.stdout).not.toContain('FAILING');
      expect(cleared.stdout).toContain('pruning: no pass failing');
    });
  },
);

describe('airlock retention --help', () => {
  it('says set needs an admin, and what get says of failing passes', () => {
    const help = retentionHelp(36_500).replace(/\s+/g, ' ');
    expect(help).toContain('get needs a member credential, set an admin');
    expect(help).toContain('pruning FAILING');
  });
});
