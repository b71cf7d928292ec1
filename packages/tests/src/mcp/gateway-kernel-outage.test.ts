import { type Gateway, KernelApi } from '@airlock/mcp';
import { createClient } from '@airlock/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually, startTestKernel, type TestKernel } from '../support/kernel.js';
import { startSlowGateway } from './slow-gateway.js';

/*
 * The kernel goes away while a gateway call is parked (a restart, a deploy):
 * the park is durable, so the call waits through the outage instead of
 * answering an error while its row stays parked (and may still run once a
 * person approves it); a cancellation the kernel could not take is sent
 * again until it lands.
 */
describe('MCP gateway: a parked call outlives a kernel outage', () => {
  let kernel: TestKernel;
  let gateway: Gateway;
  let client: Client | undefined;

  beforeEach(async () => {
    kernel = await startTestKernel();
    await new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent }).putProfile({
      approval_mode: 'ask',
      approval_rules: [],
    });
    gateway = await startSlowGateway(kernel);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await gateway.connect(serverSide, kernel.workspace.tokens.agent);
    client = new Client({ name: 'outage-client', version: '1.0.0' });
    await client.connect(clientSide);
  });
  afterEach(async () => {
    await client?.close();
    await gateway?.close();
    await kernel?.close();
  });

  const workspace = () =>
    createClient({ url: kernel.url, token: kernel.workspace.tokens.member }).workspace(
      kernel.workspace.id,
    );
  const parked = () =>
    eventually(async () => {
      const found = (await workspace().decisions.list()).find((d) => d.isApproval());
      return found?.isApproval() ? found : null;
    });
  const call = (signal?: AbortSignal) =>
    client?.callTool({ name: 'slow__wait', arguments: { ms: 0 } }, undefined, {
      signal,
      timeout: 60_000,
    }) as Promise<CallToolResult>;
  /** Long enough for the waiting call to read its row several times against no kernel. */
  const outage = () => new Promise((resolve) => setTimeout(resolve, 800));

  it('waits through the outage and runs once when a person approves after it', async () => {
    const pending = call();
    let answered = false;
    void pending.then(
      () => {
        answered = true;
      },
      () => {
        answered = true;
      },
    );
    await parked();
    await kernel.stop();
    await outage();
    expect(answered).toBe(false);
    await kernel.start();
    await (await parked()).approve();
    const answer = await pending;
    expect(answer.isError).toBeFalsy();
    const [run] = await workspace().runs.list();
    const rows = await workspace()
      .runs.run(run?.id ?? '')
      .tasks();
    expect(rows.map((row) => row.state)).toEqual(['succeeded']);
    expect(rows[0]?.attempts).toBe(1);
  });

  it('cancels the row once the kernel is back when the client canceled during the outage', async () => {
    const controller = new AbortController();
    const pending = call(controller.signal);
    const { run_id, task_key } = await parked();
    await kernel.stop();
    controller.abort('gave up');
    await expect(pending).rejects.toThrow();
    await outage();
    await kernel.start();
    const row = await eventually(async () => {
      const found = await workspace().runs.run(run_id).task(task_key);
      return found.state === 'canceled' ? found : null;
    });
    expect(row.state).toBe('canceled');
  });

  it('cancels the row once the kernel is back when the client canceled during the outage and then left', async () => {
    const controller = new AbortController();
    const pending = call(controller.signal);
    const { run_id, task_key } = await parked();
    await kernel.stop();
    controller.abort('gave up');
    await expect(pending).rejects.toThrow();
    await client?.close();
    client = undefined;
    await outage();
    await kernel.start();
    const run = workspace().runs.run(run_id);
    const row = await eventually(async () => {
      const found = await run.task(task_key);
      return found.state === 'canceled' ? found : null;
    });
    expect(row.state).toBe('canceled');
    // Nothing of the session waits any more: its run ends with its final answer.
    const ended = await eventually(async () => {
      const view = await run.get();
      return view.state === 'running' ? null : view;
    });
    expect(ended).toMatchObject({ state: 'completed', final_answer: 'The MCP session ended.' });
  });
});
