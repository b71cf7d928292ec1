import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startGateway } from '@airlock/mcp';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/kernel.js';
import { useSdkGateway } from './sdk-gateway-fixture.js';
import { filesystemServer } from './servers.js';

/*
 * The gateway with an MCP client from the official SDK over Streamable HTTP
 * on loopback, in front of the real filesystem server: each tools/call is a
 * model row of the client's gateway run, decided by the profile's rules or a person.
 */
describe('MCP gateway: an SDK client behind the approval stage', () => {
  const { g, connect, workspace, parked, text } = useSdkGateway();

  it('lists the bridged tools with their schemas and annotations', async () => {
    const client = await connect(g.kernel.workspace.tokens.agent);
    const { tools } = await client.listTools();
    const write = tools.find((t) => t.name === 'fs__write_file');
    expect(write?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(write?.inputSchema.properties).toHaveProperty('path');
    expect(tools.map((t) => t.name)).toContain('fs__read_text_file');
  });

  it('a write parks with progress notifications, a person approves, the file exists', async () => {
    const client = await connect(g.kernel.workspace.tokens.agent);
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
    expect(existsSync(join(g.dir, 'src/a.txt'))).toBe(false);
    await decision.approve();
    const result = (await pending) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe('Successfully wrote to src/a.txt');
    expect(readFileSync(join(g.dir, 'src/a.txt'), 'utf8')).toBe('hello');
    const run = await workspace().runs.run(decision.task.run_id).get();
    expect(run).toMatchObject({ provider: 'gateway', state: 'running' });
    expect(run.conversation_id).not.toBeNull();
  });

  it('a parked call is woken by its run feed once decided, with no poll due for a minute', async () => {
    const slow = await startGateway({
      url: g.kernel.url,
      workspaceId: g.kernel.workspace.id,
      executorToken: g.kernel.workspace.tokens.executor,
      servers: [filesystemServer(g.dir)],
      pollMs: 60_000,
    });
    try {
      const client = await connect(g.kernel.workspace.tokens.agent, undefined, {
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
      expect(readFileSync(join(g.dir, 'src/woken.txt'), 'utf8')).toBe('w');
      await client.close();
    } finally {
      await slow.close();
    }
  });

  it('a read the rules allow is granted without a park, in the same run', async () => {
    const client = await connect(g.kernel.workspace.tokens.agent);
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
      const response = await fetch(`${g.kernel.url}/metrics`, {
        headers: { authorization: `Bearer ${g.kernel.workspace.tokens.member}` },
      });
      return response.text();
    };
    const live = async () =>
      Number(/^airlock_feed_subscribers\{state="live"\} (\d+)$/m.exec(await metrics())?.[1]);
    const subscribers = await live();
    const client = await connect(g.kernel.workspace.tokens.agent, undefined, {
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
    const client = await connect(g.kernel.workspace.tokens.agent);
    const pending = client.callTool({
      name: 'fs__write_file',
      arguments: { path: 'src/b.txt', content: 'no' },
    });
    await (await parked('fs__write_file')).deny({ reason: 'not in this repo' });
    const result = (await pending) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('Airlock refused this call: not in this repo');
    expect(existsSync(join(g.dir, 'src/b.txt'))).toBe(false);
  });

  it('answers a call to a tool it does not serve with an MCP error, planting nothing', async () => {
    const client = await connect(g.kernel.workspace.tokens.agent);
    // The code's prefix appears once: the client adds it, so the gateway's message must not.
    await expect(client.callTool({ name: 'fs__nope', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: 'MCP error -32602: no tool fs__nope behind this gateway',
    });
  });
});
