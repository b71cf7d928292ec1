import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { doctor, installHooks } from '@airlock/hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestKernel, type TestKernel } from '../support/kernel.js';

/**
 * The kernel reads a hooked call's relative paths from the agent's `cwd`,
 * which it can place only inside the profile's project_root or above it:
 * doctor says when the directory the agent runs in lies elsewhere.
 */
describe("airlock hooks doctor and the profile's project_root", () => {
  let kernel: TestKernel | undefined;
  afterEach(async () => {
    await kernel?.close();
    kernel = undefined;
  });

  it('warns of a directory outside it or of none, with the fix, and passes one inside or above', async () => {
    kernel = await startTestKernel();
    const home = mkdtempSync(join(tmpdir(), 'airlock-doctor-root-'));
    const env = { HOME: home, PATH: '/nonexistent' };
    const scope = { kind: 'user' } as const;
    installHooks({
      agent: 'claude-code',
      scope,
      env,
      url: kernel.url,
      token: kernel.workspace.tokens.agent,
    });
    const declare = async (configuration: Record<string, unknown>) => {
      const put = await fetch(`${kernel?.url}/agent_api/v1/profile/configuration`, {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${kernel?.workspace.tokens.agent}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ approval_mode: 'ask', ...configuration }),
      });
      expect(put.status).toBe(200);
    };
    const rootCheck = async (workingDirectory: string) =>
      (await doctor({ agents: ['claude-code'], scope, env, workingDirectory })).find(
        (check) => check.check === 'project root',
      );

    // No project_root and no rule over paths: nothing to say.
    await declare({});
    expect(await rootCheck('/work/other')).toBeUndefined();
    // Target rules with no project_root: an absolute path cannot be placed, so it asks.
    const sets = [{ id: 'house', rules: [{ verdict: 'deny', targets: ['secrets/**'] }] }];
    await declare({ permission_rule_set: 'house', custom_rule_sets: sets });
    const rootless = await rootCheck('/work/repo');
    expect(rootless).toMatchObject({ status: 'warn' });
    expect(rootless?.detail).toContain('has no project_root');
    expect(rootless?.fix).toContain('set project_root to /work/repo');

    await declare({ project_root: '/work/repo' });
    const outside = await rootCheck('/work/other');
    expect(outside).toMatchObject({ status: 'warn' });
    expect(outside?.detail).toContain('/work/other is outside');
    expect(outside?.detail).toContain('/work/repo');
    expect(outside?.fix).toContain('set project_root to /work/other or a directory above it');
    // A sibling that shares the root's name as a prefix is outside too.
    expect((await rootCheck('/work/repo-old'))?.status).toBe('warn');
    expect((await rootCheck('/work/Repo/src'))?.detail).toContain('only in letter case');
    expect((await rootCheck('work/repo'))?.status).toBe('warn');
    expect((await rootCheck('/work/repo/src/'))?.status).toBe('ok');
    expect((await rootCheck('/work/repo'))?.status).toBe('ok');
    expect((await rootCheck('/work'))?.status).toBe('ok');
  });
});
