import { type Gateway, KernelApi } from '@airlock/mcp';
import { createClient, type TaskView } from '@airlock/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually, startTestKernel, type TestKernel } from '../support/kernel.js';
import { startSlowGateway } from './slow-gateway.js';

const SETTLED = ['succeeded', 'failed', 'timed_out', 'canceled'];

/*
 * A client's cancellation (`notifications/cancelled`) of a call the gateway
 * has not started yet: whatever happened to the row meanwhile (a person
 * approved it, or it was granted and claimed in its own submit), the tool
 * does not run; of a call whose tool runs here: the server's call is
 * canceled too. The agent's calls park (ask); the member's are granted (bypass).
 */
describe('MCP gateway: a client cancels a call', () => {
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
  });
  afterEach(async () => {
    await client?.close();
    await gateway?.close();
    await kernel?.close();
  });

  async function connect(token: string): Promise<Client> {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await gateway.connect(serverSide, token);
    client = new Client({ name: 'cancel-client', version: '1.0.0' });
    await client.connect(clientSide);
    return client;
  }

  const workspace = () =>
    createClient({ url: kernel.url, token: kernel.workspace.tokens.member }).workspace(
      kernel.workspace.id,
    );
  const parked = () =>
    eventually(async () => {
      const found = (await workspace().decisions.list()).find((d) => d.isApproval());
      return found?.isApproval() ? found : null;
    });
  /** The session's one row, once it settled. */
  const settledRow = () =>
    eventually(async () => {
      const [run] = await workspace().runs.list();
      const [row] = run ? await workspace().runs.run(run.id).tasks() : [];
      return row && SETTLED.includes(row.state) ? row : null;
    });
  const wait = (c: Client, ms: number, signal?: AbortSignal) =>
    c.callTool({ name: 'slow__wait', arguments: { ms } }, undefined, {
      signal,
      timeout: 60_000,
    }) as Promise<CallToolResult>;

  it('a call canceled right after a person approved it is canceled, not run', async () => {
    const c = await connect(kernel.workspace.tokens.agent);
    const controller = new AbortController();
    const pending = wait(c, 0, controller.signal);
    const decision = await parked();
    await decision.approve();
    controller.abort('changed my mind');
    await expect(pending).rejects.toThrow();
    const row: TaskView = await settledRow();
    // Canceled in the kernel as a rule; on a machine slow enough that the gateway claimed the
    // row before the cancellation reached it, failed client_canceled: never run either way.
    if (row.state === 'failed') {
      expect(row.error?.code).toBe('client_canceled');
    } else {
      expect(row.state).toBe('canceled');
    }
  });

  it("a call the bridge's executor claimed by itself still hears the client's cancellation", async () => {
    const c = await connect(kernel.workspace.tokens.agent);
    const controller = new AbortController();
    // Far longer than the wait for the row below: only the cancellation ends it in time.
    const pending = wait(c, 60_000, controller.signal);
    const decision = await parked();
    await decision.approve();
    // The executor's drain of its inbox (a nudge of another run, its poll) claims the approved
    // row with no word from the session: here the bridge's take, sent before the session has
    // read the row again, plays that claim.
    const drained = gateway.bridge.take(decision.run_id, decision.task_key);
    await eventually(() => gateway.bridge.holds(decision.run_id, decision.task_key));
    controller.abort('changed my mind');
    await expect(pending).rejects.toThrow();
    const row = await settledRow();
    expect(row.state).toBe('failed');
    expect(row.error).toEqual({
      code: 'client_canceled',
      detail: 'the MCP client canceled the call while its tool ran',
    });
    await drained;
  });

  it('an approved call the client keeps runs and answers', async () => {
    const c = await connect(kernel.workspace.tokens.agent);
    const pending = wait(c, 0);
    await (await parked()).approve();
    const answer = await pending;
    expect(answer.isError).toBeFalsy();
    expect((await settledRow()).state).toBe('succeeded');
  });

  it('a granted call canceled while it was planted fails client_canceled without running', async () => {
    const c = await connect(kernel.workspace.tokens.member);
    const controller = new AbortController();
    const pending = wait(c, 0, controller.signal);
    // The request is on its way; the gateway's submit (a kernel round trip) is not back yet.
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort('changed my mind');
    await expect(pending).rejects.toThrow();
    const row = await settledRow();
    expect(row.state).toBe('failed');
    expect(row.error).toEqual({
      code: 'client_canceled',
      detail: 'the MCP client canceled the call before its tool ran',
    });
  });

  it("a call canceled while its tool runs stops the server's call and fails client_canceled", async () => {
    const c = await connect(kernel.workspace.tokens.member);
    const controller = new AbortController();
    // Far longer than the wait for the row below: only the cancellation ends it in time.
    const pending = wait(c, 60_000, controller.signal);
    const { run_id, key } = await eventually(async () => {
      const [run] = await workspace().runs.list();
      const [row] = run ? await workspace().runs.run(run.id).tasks() : [];
      return row && gateway.bridge.holds(row.run_id, row.key) ? row : null;
    });
    controller.abort('changed my mind');
    await expect(pending).rejects.toThrow();
    const row = await settledRow();
    expect(row).toMatchObject({ run_id, key, state: 'failed' });
    expect(row.error).toEqual({
      code: 'client_canceled',
      detail: 'the MCP client canceled the call while its tool ran',
    });
  });

  it('a parked call its client cancels and then disconnects at once is canceled, not left parked', async () => {
    const c = await connect(kernel.workspace.tokens.agent);
    const controller = new AbortController();
    const pending = wait(c, 0, controller.signal);
    const decision = await parked();
    controller.abort('changed my mind');
    await expect(pending).rejects.toThrow();
    // The close comes right behind the cancellation: the gateway must not read it as a disconnect.
    await c.close();
    client = undefined;
    const row = await settledRow();
    expect(row).toMatchObject({ key: decision.task_key, state: 'canceled' });
  });

  it("a parked call its client cancels keeps the client's reason on its row", async () => {
    const c = await connect(kernel.workspace.tokens.agent);
    const controller = new AbortController();
    const pending = wait(c, 0, controller.signal);
    const decision = await parked();
    controller.abort('the user typed /stop');
    await expect(pending).rejects.toThrow();
    const row = await settledRow();
    expect(row).toMatchObject({
      key: decision.task_key,
      state: 'canceled',
      error: { code: 'canceled', detail: 'the MCP client canceled the call: the user typed /stop' },
    });
  });
});
