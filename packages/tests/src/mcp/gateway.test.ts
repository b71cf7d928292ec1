import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Gateway, type HttpGateway, KernelApi, startGateway } from '@airlock/mcp';
import { createClient } from '@airlock/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  type CallToolResult,
  ElicitRequestSchema,
  type ElicitResult,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestKernel, type TestKernel } from '../support/kernel.js';
import { filesystemServer, workFolder } from './servers.js';

/*
 * The gateway with an MCP client from the official SDK over Streamable HTTP
 * on loopback, in front of the real filesystem server: each tools/call is a
 * model row of the client's gateway run, decided by the profile's rules or a person.
 */
describe('MCP gateway: an SDK client behind the approval stage', () => {
  let kernel: TestKernel;
  let gateway: Gateway;
  let front: HttpGateway;
  let dir: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    kernel = await startTestKernel();
    dir = workFolder();
    await new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent }).putProfile({
      approval_mode: 'rules',
      approval_rules: [
        { tool: 'fs__read_*|fs__list_*', verdict: 'allow' },
        { tool: 'fs__write_file', verdict: 'ask' },
      ],
    });
    gateway = await startGateway({
      url: kernel.url,
      workspaceId: kernel.workspace.id,
      executorToken: kernel.workspace.tokens.executor,
      servers: [filesystemServer(dir)],
      memberPolicy: {
        approval_mode: 'rules',
        approval_rules: [{ tool: 'fs__write_file', verdict: 'ask' }],
      },
      pollMs: 50,
      progressEveryMs: 100,
    });
    front = await gateway.listenHttp();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await gateway?.close();
    await kernel?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** An SDK client of the gateway (`at.url`, default the suite's), named `at.name`. */
  async function connect(
    token: string,
    elicit?: () => ElicitResult,
    at: { name?: string; url?: string } = {},
  ): Promise<Client> {
    const client = new Client(
      { name: at.name ?? 'test-client', version: '1.0.0' },
      elicit ? { capabilities: { elicitation: { form: {} } } } : {},
    );
    if (elicit) client.setRequestHandler(ElicitRequestSchema, async () => elicit());
    await client.connect(
      new StreamableHTTPClientTransport(new URL(at.url ?? front.url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    return client;
  }

  const workspace = () =>
    createClient({ url: kernel.url, token: kernel.workspace.tokens.member }).workspace(
      kernel.workspace.id,
    );
  const parked = async (tool: string) =>
    eventually(async () => {
      const found = (await workspace().decisions.list()).find(
        (d) => d.isApproval() && d.tool_name === tool,
      );
      return found?.isApproval() ? found : null;
    });
  const text = (result: CallToolResult) =>
    result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');

  it('lists the bridged tools with their schemas and annotations', async () => {
    const client = await connect(kernel.workspace.tokens.agent);
    const { tools } = await client.listTools();
    const write = tools.find((t) => t.name === 'fs__write_file');
    expect(write?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(write?.inputSchema.properties).toHaveProperty('path');
    expect(tools.map((t) => t.name)).toContain('fs__read_text_file');
  });

  it('a write parks with progress notifications, a person approves, the file exists', async () => {
    const client = await connect(kernel.workspace.tokens.agent);
    const progress: Progress[] = [];
    const pending = client.callTool(
      { name: 'fs__write_file', arguments: { path: 'src/a.txt', content: 'hello' } },
      undefined,
      { onprogress: (p) => progress.push(p), timeout: 30_000 },
    );
    const decision = await parked('fs__write_file');
    await eventually(() => progress.length >= 2);
    expect(progress[0]?.message).toContain(`task ${decision.task.key}`);
    expect(progress[1]?.progress).toBeGreaterThan(progress[0]?.progress ?? 0);
    expect(existsSync(join(dir, 'src/a.txt'))).toBe(false);
    await decision.approve();
    const result = (await pending) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe('Successfully wrote to src/a.txt');
    expect(readFileSync(join(dir, 'src/a.txt'), 'utf8')).toBe('hello');
    const run = await workspace().runs.run(decision.task.run_id).get();
    expect(run).toMatchObject({ provider: 'gateway', state: 'running' });
    expect(run.conversation_id).not.toBeNull();
  });

  it('a parked call is woken by its run feed once decided, with no poll due for a minute', async () => {
    const slow = await startGateway({
      url: kernel.url,
      workspaceId: kernel.workspace.id,
      executorToken: kernel.workspace.tokens.executor,
      servers: [filesystemServer(dir)],
      pollMs: 60_000,
    });
    try {
      const client = await connect(kernel.workspace.tokens.agent, undefined, {
        url: (await slow.listenHttp()).url,
      });
      const pending = client.callTool(
        { name: 'fs__write_file', arguments: { path: 'src/woken.txt', content: 'w' } },
        undefined,
        // Far shorter than the session's next read of the row: only the feed can wake it in time.
        { timeout: 20_000 },
      );
      const decision = await parked('fs__write_file');
      await decision.approve();
      expect(((await pending) as CallToolResult).isError).toBeFalsy();
      expect(readFileSync(join(dir, 'src/woken.txt'), 'utf8')).toBe('w');
      await client.close();
    } finally {
      await slow.close();
    }
  });

  it('a read the rules allow is granted without a park, in the same run', async () => {
    const client = await connect(kernel.workspace.tokens.agent);
    const first = (await client.callTool({
      name: 'fs__read_text_file',
      arguments: { path: 'src/a.txt' },
    })) as CallToolResult;
    expect(text(first)).toBe('hello');
    const second = (await client.callTool({
      name: 'fs__list_directory',
      arguments: { path: 'src' },
    })) as CallToolResult;
    expect(text(second)).toContain('a.txt');
    const runs = await workspace().runs.list();
    const run = runs.find((r) => r.provider === 'gateway' && r.round === 2);
    const events = await workspace()
      .runs.run(run?.id ?? '')
      .events();
    expect(events.filter((e) => e.type === 'task.granted')).toHaveLength(2);
    expect(events.map((e) => e.type)).not.toContain('task.parked');
  });

  it("a granted call runs on the gateway's own bridge: claimed in its submit, then committed", async () => {
    const metrics = async () => {
      const response = await fetch(`${kernel.url}/metrics`, {
        headers: { authorization: `Bearer ${kernel.workspace.tokens.member}` },
      });
      return response.text();
    };
    const live = async () =>
      Number(/^airlock_feed_subscribers\{state="live"\} (\d+)$/m.exec(await metrics())?.[1]);
    const subscribers = await live();
    const client = await connect(kernel.workspace.tokens.agent, undefined, {
      name: 'bridge-trips',
    });
    // The session's run is made by its first call, whose commit follows its answer: wait for it.
    await client.callTool({ name: 'fs__list_directory', arguments: { path: '.' } });
    await eventually(async () => {
      const run = (await workspace().runs.list()).find(
        (r) => r.input === 'MCP session of bridge-trips 1.0.0',
      );
      const tasks = run ? await workspace().runs.run(run.id).tasks() : [];
      return tasks.length === 1 && tasks[0]?.state === 'succeeded';
    });
    const requests = async () => {
      const counts = new Map<string, number>();
      for (const [, operation, count] of (await metrics()).matchAll(
        /^airlock_request_seconds_count\{operation="([^"]+)"\} (\d+)$/gm,
      )) {
        counts.set(operation as string, Number(count));
      }
      return counts;
    };
    const before = await requests();
    for (let i = 0; i < 3; i += 1) {
      const result = (await client.callTool({
        name: 'fs__list_directory',
        arguments: { path: '.' },
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
    }
    // The drain's nudged claims and the row reads would come after the answers: give them time.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const after = await requests();
    const made = (operation: string) => (after.get(operation) ?? 0) - (before.get(operation) ?? 0);
    // Two trips a call: the submit, which claims the granted row for the gateway's own bridge,
    // and its commit. No claim of its own, no claimNext of the drain (the bridge leaves the
    // session's nudges to it), no read of the row afterwards.
    // No call waited, so the session opened no feed of its run.
    expect(await live()).toBeLessThanOrEqual(subscribers);
    const trips = [...after.keys()].filter((operation) => operation !== 'other' && made(operation));
    expect(Object.fromEntries(trips.map((operation) => [operation, made(operation)]))).toEqual({
      'runs.calls': 3,
      'executor.commit': 3,
    });
  });

  it('a denied write answers isError with the reason and leaves no file', async () => {
    const client = await connect(kernel.workspace.tokens.agent);
    const pending = client.callTool({
      name: 'fs__write_file',
      arguments: { path: 'src/b.txt', content: 'no' },
    });
    await (await parked('fs__write_file')).deny({ reason: 'not in this repo' });
    const result = (await pending) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('Airlock refused this call: not in this repo');
    expect(existsSync(join(dir, 'src/b.txt'))).toBe(false);
  });

  it('a member credential runs under the gateway policy: unmatched calls are refused', async () => {
    const client = await connect(kernel.workspace.tokens.member);
    const result = (await client.callTool({
      name: 'fs__read_text_file',
      arguments: { path: 'src/a.txt' },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      'Airlock refused this call: no approval rule allows fs__read_text_file',
    );
  });

  it("a member's client that supports elicitation lets its own user approve inline", async () => {
    const asked: string[] = [];
    const client = await connect(kernel.workspace.tokens.member, () => {
      asked.push('approve');
      return { action: 'accept', content: { decision: 'approve' } };
    });
    const result = (await client.callTool({
      name: 'fs__write_file',
      arguments: { path: 'src/inline.txt', content: 'inline' },
    })) as CallToolResult;
    expect(text(result)).toBe('Successfully wrote to src/inline.txt');
    expect(asked).toEqual(['approve']);
    expect(readFileSync(join(dir, 'src/inline.txt'), 'utf8')).toBe('inline');
    const runs = await workspace().runs.list();
    const run = runs.find((r) => r.provider === 'gateway' && r.conversation_id === null);
    const [task] = await workspace()
      .runs.run(run?.id ?? '')
      .tasks();
    expect(task?.decided_by).toMatch(/^member:/);
  });

  it('a declined elicitation denies the call; an agent credential is never asked inline', async () => {
    const member = await connect(kernel.workspace.tokens.member, () => ({ action: 'decline' }));
    const declined = (await member.callTool({
      name: 'fs__write_file',
      arguments: { path: 'src/declined.txt', content: 'x' },
    })) as CallToolResult;
    expect(declined.isError).toBe(true);
    expect(text(declined)).toBe("Airlock refused this call: the client's user denied this call");
    expect(existsSync(join(dir, 'src/declined.txt'))).toBe(false);

    let askedAgent = false;
    const agent = await connect(kernel.workspace.tokens.agent, () => {
      askedAgent = true;
      return { action: 'accept', content: { decision: 'approve' } };
    });
    const pending = agent.callTool({
      name: 'fs__write_file',
      arguments: { path: 'src/agent.txt', content: 'y' },
    });
    const decision = await parked('fs__write_file');
    await decision.deny({ reason: 'checked by a person' });
    expect(text((await pending) as CallToolResult)).toContain('checked by a person');
    expect(askedAgent).toBe(false);
  });

  it('a cancellation from the client cancels the parked row', async () => {
    const client = await connect(kernel.workspace.tokens.agent);
    const controller = new AbortController();
    const pending = client.callTool(
      { name: 'fs__write_file', arguments: { path: 'src/c.txt', content: 'x' } },
      undefined,
      { signal: controller.signal },
    );
    const decision = await parked('fs__write_file');
    controller.abort('changed my mind');
    await expect(pending).rejects.toThrow();
    const run = workspace().runs.run(decision.task.run_id);
    await eventually(async () => (await run.task(decision.task.key)).state === 'canceled');
    expect(existsSync(join(dir, 'src/c.txt'))).toBe(false);
  });

  it('a disconnect leaves the parked row to its clock (a person can still decide)', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await gateway.connect(serverSide, kernel.workspace.tokens.agent);
    const client = new Client({ name: 'gone', version: '1' });
    await client.connect(clientSide);
    const pending = client.callTool({
      name: 'fs__write_file',
      arguments: { path: 'src/d.txt', content: 'later' },
    });
    const decision = await parked('fs__write_file');
    await client.close();
    await expect(pending).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const run = workspace().runs.run(decision.task.run_id);
    expect((await run.task(decision.task.key)).state).toBe('needs_approval');
    await decision.approve();
    await eventually(() => existsSync(join(dir, 'src/d.txt')));
  });

  it('answers a call to a tool it does not serve with an MCP error, planting nothing', async () => {
    const client = await connect(kernel.workspace.tokens.agent);
    // The code's prefix appears once: the client adds it, so the gateway's message must not.
    await expect(client.callTool({ name: 'fs__nope', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: 'MCP error -32602: no tool fs__nope behind this gateway',
    });
  });

  it('refuses a request without a member or agent credential', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'x', version: '1' },
      },
    };
    const post = (token: string | null) =>
      fetch(front.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(initialize),
      });
    expect((await post(null)).status).toBe(401);
    expect((await post(kernel.workspace.tokens.executor)).status).toBe(403);
    expect((await post('alk_agent_not-a-real-token')).status).toBe(401);
    const opened = await post(kernel.workspace.tokens.agent);
    expect(opened.status).toBe(200);
    const sessionId = opened.headers.get('mcp-session-id') ?? '';
    /** A tools/list in session `id` with the member's credential. */
    const listIn = (id: string) =>
      fetch(front.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${kernel.workspace.tokens.member}`,
          'mcp-session-id': id,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
    const other = await listIn(sessionId);
    // Answered as a session that does not exist: nothing says the session is someone else's.
    const unknown = await listIn('00000000-0000-4000-8000-000000000000');
    expect(other.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(await other.text()).toBe(await unknown.text());
    const garbled = await fetch(front.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${kernel.workspace.tokens.agent}`,
      },
      body: '{not json',
    });
    expect(garbled.status).toBe(400);
    expect(await garbled.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
  });
});
