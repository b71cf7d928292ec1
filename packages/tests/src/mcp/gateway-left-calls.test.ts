import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Gateway, KernelApi, startGateway } from '@airlock/mcp';
import { createClient } from '@airlock/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestKernel, type TestKernel } from '../support/kernel.js';
import { filesystemServer, workFolder } from './servers.js';

/*
 * A client that goes away while its call is parked leaves the call to a
 * person. Once the person decided (either way), the session's run ends with
 * its final answer, as a session with nothing waiting ends at once; a
 * gateway that stops before that leaves the run open.
 */
describe('MCP gateway: the run of a client that left during a park', () => {
  let kernel: TestKernel;
  let dir: string;
  const gateways: Gateway[] = [];

  beforeAll(async () => {
    kernel = await startTestKernel();
    dir = workFolder();
    await new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent }).putProfile({
      approval_mode: 'ask',
    });
  });
  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.close()));
    await kernel?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const newGateway = async () => {
    const gateway = await startGateway({
      url: kernel.url,
      workspaceId: kernel.workspace.id,
      executorToken: kernel.workspace.tokens.executor,
      servers: [filesystemServer(dir)],
      pollMs: 50,
    });
    gateways.push(gateway);
    return gateway;
  };
  const workspace = () =>
    createClient({ url: kernel.url, token: kernel.workspace.tokens.member }).workspace(
      kernel.workspace.id,
    );

  /** Parks a write from a client of `gateway`, then closes the client: the decision it left. */
  async function leaveParked(gateway: Gateway, file: string) {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await gateway.connect(serverSide, kernel.workspace.tokens.agent);
    const client = new Client({ name: 'leaving', version: '1' });
    await client.connect(clientSide);
    const pending = client.callTool({
      name: 'fs__write_file',
      arguments: { path: `src/${file}`, content: 'x' },
    });
    const decision = await eventually(async () => {
      const found = (await workspace().decisions.list()).find(
        (d) => d.isApproval() && (d.tool_input as { path?: string }).path === `src/${file}`,
      );
      return found?.isApproval() ? found : null;
    });
    await client.close();
    await expect(pending).rejects.toThrow();
    return decision;
  }

  it.each([
    ['approved', 'approve'],
    ['denied', 'deny'],
  ] as const)(
    'a call left parked and then %s ends the run with its final answer',
    async (_decided, verdict) => {
      const gateway = await newGateway();
      const decision = await leaveParked(gateway, `${verdict}.txt`);
      const run = workspace().runs.run(decision.task.run_id);
      expect((await run.get()).state).toBe('running');
      if (verdict === 'approve') await decision.approve();
      else await decision.deny({ reason: 'not now' });
      const ended = await eventually(async () => {
        const view = await run.get();
        return view.state === 'running' ? null : view;
      });
      expect(ended).toMatchObject({ state: 'completed', final_answer: 'The MCP session ended.' });
      expect((await run.task(decision.task.key)).state).toBe(
        verdict === 'approve' ? 'succeeded' : 'failed',
      );
      expect(existsSync(join(dir, `src/${verdict}.txt`))).toBe(verdict === 'approve');
    },
  );

  it('a gateway that stops first leaves the run open and the call parked', async () => {
    const gateway = await newGateway();
    const decision = await leaveParked(gateway, 'stopped.txt');
    await gateway.close();
    const run = workspace().runs.run(decision.task.run_id);
    expect((await run.get()).state).toBe('running');
    expect((await run.task(decision.task.key)).state).toBe('needs_approval');
  });
});
