import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperatorInProcess } from '../testing/cli-in-process.js';
import { type KernelProcess, runCli, startKernelProcess } from '../testing/kernel-process.js';
import { type OperatorTarget, runOperatorCli } from '../testing/operator-cli.js';

/** The local workspace's application, which the operators' member credentials belong to. */

const root = mkdtempSync(join(tmpdir(), 'airlock-local-app-'));
const dataDir = join(root, 'store');
let kernel: KernelProcess;
let target: OperatorTarget;
let localApp: string;

beforeAll(async () => {
  kernel = await startKernelProcess({ dataDir });
  target = { url: kernel.url, workspaceId: kernel.workspaceId, tokens: kernel.tokens };
  const listed = await runOperatorInProcess(target, ['apps', 'list', '--json']);
  localApp = JSON.parse(listed.stdout).agent_applications[0].id;
});
afterAll(async () => {
  await kernel?.stop();
  rmSync(root, { recursive: true, force: true });
});

async function memberCredentialId(token: string): Promise<string> {
  const response = await fetch(
    `${kernel.url}/api/v1/workspaces/${kernel.workspaceId}/credentials/self`,
    { headers: { authorization: `Bearer ${token}` } },
  );
  return ((await response.json()) as { credential_id: string }).credential_id;
}

describe('the local application and its operators', { timeout: 180_000 }, () => {
  it('refuses to remove an application that active member credentials belong to', async () => {
    // The real CLI in a child process: exit 1, the kernel's refusal on stderr.
    const refused = await runOperatorCli(target, ['apps', 'remove', localApp]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('airlock apps remove: ');
    expect(refused.stderr).toContain(await memberCredentialId(kernel.tokens.member));
    expect(refused.stderr).toContain('--workspace-level');
    expect((await runOperatorInProcess(target, ['decisions', 'list'])).code).toBe(0);
    const listed = await runOperatorInProcess(target, ['apps', 'list']);
    expect(listed.stdout).toContain(`${localApp}\tactive`);
  });

  it('makes local tokens that work after the local application was removed another way', async () => {
    const workspaceLevel = await runOperatorInProcess(target, [
      'tokens',
      'create',
      '--kind',
      'member',
      '--role',
      'admin',
      '--workspace-level',
      '--json',
    ]);
    const admin = JSON.parse(workspaceLevel.stdout).token as string;
    // Over REST, as any client may: the kernel refuses it too while its member credentials are active.
    const remove = () =>
      fetch(
        `${kernel.url}/api/v1/workspaces/${kernel.workspaceId}/agent_applications/${localApp}/remove`,
        { method: 'POST', headers: { authorization: `Bearer ${admin}` } },
      );
    const refused = await remove();
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
      'application_has_member_credentials',
    );
    const credentials = await runOperatorInProcess(target, ['tokens', 'list', '--json'], {
      token: admin,
    });
    for (const c of JSON.parse(credentials.stdout).credentials as {
      credential_id: string;
      kind: string;
      agent_application_id: string | null;
    }[]) {
      if (c.kind !== 'member' || c.agent_application_id !== localApp) continue;
      const revoked = await runOperatorInProcess(target, ['tokens', 'revoke', c.credential_id], {
        token: admin,
      });
      expect(revoked.code).toBe(0);
    }
    expect((await remove()).status).toBe(202);
    expect((await runOperatorInProcess(target, ['decisions', 'list'])).code).toBe(1);

    const member = await runCli(['token', 'create', '--kind', 'member', '--data-dir', dataDir]);
    expect(member.code).toBe(0);
    const memberToken = member.stdout.trim();
    expect(
      (await runOperatorInProcess(target, ['decisions', 'list'], { token: memberToken })).code,
    ).toBe(0);
    const agent = await runCli(['token', 'create', '--kind', 'agent', '--data-dir', dataDir]);
    const agentToken = agent.stdout.trim();
    expect((await runOperatorInProcess(target, ['runs', 'list'], { token: agentToken })).code).toBe(
      0,
    );
  });
});
