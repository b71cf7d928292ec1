import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { KernelApi, startExecutorBridge } from '@airlock/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKernel, type TestKernel, type TestWorkspace } from '../support/kernel.js';
import { memoryServer, workFolder } from './servers.js';
import { runAirlockCli } from './stdio-gateway.js';

/*
 * `airlock executor mcp --agent-token T` worked without `--workspace` until
 * the bridge began checking that both credentials are of one application:
 * that check read each credential's self in a named workspace, so the
 * command line was refused (and `startExecutorBridge` without `workspaceId`
 * skipped the check, registering an agent of another application). Each
 * credential now reads itself in its own workspace (`-`), and the check
 * always runs.
 */
describe('the executor bridge without a workspace', () => {
  let kernel: TestKernel;
  let other: TestWorkspace;
  let dir: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    kernel = await startTestKernel();
    other = await kernel.addWorkspace('other');
    dir = workFolder();
    for (const token of [kernel.workspace.tokens.agent, other.tokens.agent]) {
      await new KernelApi({ url: kernel.url, token }).putProfile({
        approval_mode: 'ask',
        tool_names: ['bash'],
      });
    }
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await kernel?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const self = (token: string, workspace: string) =>
    fetch(`${kernel.url}/api/v1/workspaces/${workspace}/credentials/self`, {
      headers: { authorization: `Bearer ${token}` },
    });

  it('a credential reads itself in its own workspace as `-`, and only itself', async () => {
    for (const workspace of [kernel.workspace, other]) {
      for (const kind of ['agent', 'executor', 'member'] as const) {
        const answer = await self(workspace.tokens[kind], '-');
        expect(answer.status).toBe(200);
        expect(await answer.json()).toMatchObject({
          kind,
          workspace_id: workspace.id,
          agent_application_id: workspace.appId,
        });
      }
    }
  });

  it('`-` names no workspace for any other operation', async () => {
    const member = kernel.workspace.tokens.member;
    for (const path of ['credentials', 'runs', 'decisions', 'agent_applications']) {
      const answer = await fetch(`${kernel.url}/api/v1/workspaces/-/${path}`, {
        headers: { authorization: `Bearer ${member}` },
      });
      expect(answer.status).toBe(403);
      expect(await answer.json()).toMatchObject({ error: { code: 'forbidden' } });
    }
  });

  it('startExecutorBridge refuses an agent of another application without a workspace id', async () => {
    const before = await new KernelApi({ url: kernel.url, token: other.tokens.agent }).profile();
    await expect(
      startExecutorBridge({
        url: kernel.url,
        executorToken: kernel.workspace.tokens.executor,
        agentToken: other.tokens.agent,
        servers: [memoryServer(join(dir, 'refused.json'), 'mem')],
      }),
    ).rejects.toThrow(
      `the agent credential is of application ${other.appId} and the executor credential of application ${kernel.workspace.appId}`,
    );
    expect(await new KernelApi({ url: kernel.url, token: other.tokens.agent }).profile()).toEqual(
      before,
    );
  });

  it('airlock executor mcp --agent-token without --workspace registers the tools again', async () => {
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      AIRLOCK_URL: kernel.url,
      AIRLOCK_EXECUTOR_TOKEN: kernel.workspace.tokens.executor,
      AIRLOCK_AGENT_TOKEN: kernel.workspace.tokens.agent,
    };
    delete env.AIRLOCK_WORKSPACE;
    const { spec } = memoryServer(join(dir, 'served.json'), 'mem');
    const child = runAirlockCli(
      ['executor', 'mcp', '--name', 'mem', '--', spec.command, ...spec.args],
      env,
      children,
    );
    const agent = new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent });
    for (let tries = 0; tries < 500; tries += 1) {
      const names = ((await agent.profile())?.tool_names ?? []) as string[];
      if (names.some((name) => name.startsWith('mem__'))) break;
      const ended = await Promise.race([
        child,
        new Promise<null>((resolve) => setTimeout(() => resolve(null), 40)),
      ]);
      if (ended) throw new Error(`the bridge ended (${ended.code}): ${ended.stderr}`);
    }
    expect(((await agent.profile())?.tool_names ?? []) as string[]).toEqual(
      expect.arrayContaining([expect.stringMatching(/^mem__/)]),
    );
    for (const running of children) running.kill('SIGTERM');
    expect((await child).code).toBe(0);
  });
});
