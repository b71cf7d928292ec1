import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestKernel, type TestKernel } from '../support/kernel.js';
import { filesystemServer, workFolder } from './servers.js';
import { CLI } from './stdio-gateway.js';

/*
 * `airlock executor mcp` and `airlock gateway mcp` whose executor credential is revoked while
 * they serve: their executor stops for good, so they exit 1 saying so (a supervisor restarts
 * them or alerts), rather than staying up with nothing claiming the bridged tools' calls.
 */
describe('an MCP bridge whose executor credential is revoked', () => {
  let kernel: TestKernel;
  let dir: string;
  beforeAll(async () => {
    kernel = await startTestKernel();
    dir = workFolder();
  });
  // Killed here, not in the test: a test that times out never reaches its own finally.
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
  });
  afterAll(async () => {
    await kernel?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const ws = () => `${kernel.url}/api/v1/workspaces/${kernel.workspace.id}`;
  const asAdmin = (path: string, body: unknown) =>
    fetch(`${ws()}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${kernel.workspace.tokens.member}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    });

  for (const command of [
    ['executor', 'mcp'],
    ['gateway', 'mcp', '--stdio'],
  ]) {
    it(`airlock ${command.join(' ')} exits 1 once its executor is refused for good`, async () => {
      const made = await asAdmin('/credentials', { kind: 'executor', label: command[0] });
      expect(made.status).toBe(201);
      const executor = (await made.json()) as { credential_id: string; token: string };
      const { spec } = filesystemServer(dir);
      const child = spawn(
        process.execPath,
        [CLI, ...command, '--name', 'fs', '--', spec.command, ...spec.args],
        {
          env: {
            ...process.env,
            AIRLOCK_URL: kernel.url,
            AIRLOCK_WORKSPACE: kernel.workspace.id,
            AIRLOCK_EXECUTOR_TOKEN: executor.token,
            AIRLOCK_TOKEN: kernel.workspace.tokens.agent,
          },
          // The gateway's stdin stays open: its client has not gone.
          stdio: ['pipe', 'ignore', 'pipe'],
        },
      );
      children.push(child);
      let stderr = '';
      child.stderr?.on('data', (chunk) => {
        stderr += String(chunk);
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      await eventually(() => stderr.includes('serving'), { timeoutMs: 30_000 });
      const revoked = await asAdmin(`/credentials/${executor.credential_id}/revoke`, {});
      expect(revoked.status).toBe(200);
      expect(await exited).toBe(1);
      expect(stderr).toContain('the executor stopped serving');
      expect(stderr).toContain('shutting down');
    });
  }
});
