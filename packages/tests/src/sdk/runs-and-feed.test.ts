import {
  createClient,
  createExecutor,
  type FeedEvent,
  type WebSocketConstructor,
} from '@airlock/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { eventually, scriptedRun, startTestKernel, type TestKernel } from '../support/kernel.js';

const parkTwo = scriptedRun('ask', [
  { tool_calls: [{ name: 'bash', input: { command: 'rm -rf ./build' } }, { name: 'read' }] },
  { final: 'done' },
]);

/** A `ws` WebSocket that records every instance, so a test can cut a connection. */
function recordingWebSocket(): { Socket: WebSocketConstructor; sockets: WebSocket[] } {
  const sockets: WebSocket[] = [];
  class Recording extends WebSocket {
    constructor(url: string) {
      super(url);
      sockets.push(this);
    }
  }
  return { Socket: Recording as unknown as WebSocketConstructor, sockets };
}

describe('runs and the lifecycle feed through the SDK', () => {
  let kernel: TestKernel;
  beforeAll(async () => {
    kernel = await startTestKernel();
  });
  afterAll(async () => {
    await kernel?.close();
  });

  it('creates, lists, reads and stops a run', async () => {
    const client = createClient({ url: kernel.url, token: kernel.workspace.tokens.member });
    const runs = client.workspace(kernel.workspace.id).runs;
    const created = await runs.create(parkTwo);
    expect(created).toMatchObject({ state: 'running', approval_mode: 'ask', provider: 'scripted' });
    expect((await runs.list()).map((run) => run.id)).toContain(created.id);
    const run = runs.run(created.id);
    expect((await run.get()).attention).toEqual([
      { reason: 'approval_required', blocked_task_keys: ['t1', 't2'] },
    ]);
    const tasks = await run.tasks();
    expect(tasks.map((task) => [task.key, task.state])).toEqual([
      ['t1', 'needs_approval'],
      ['t2', 'needs_approval'],
    ]);
    expect((await run.task('t1')).tool_input).toEqual({ command: 'rm -rf ./build' });
    expect((await run.events()).map((event) => event.type)).toContain('task.parked');
    const stopped = await run.stop();
    expect(stopped.state).toBe('canceled');
    expect((await run.tasks()).every((task) => task.state === 'canceled')).toBe(true);
  });

  it('streams the feed live, and resumes after a cut connection without gaps or repeats', async () => {
    const { Socket, sockets } = recordingWebSocket();
    const client = createClient({
      url: kernel.url,
      token: kernel.workspace.tokens.member,
      WebSocket: Socket,
    });
    const runs = client.workspace(kernel.workspace.id).runs;
    const created = await runs.create(parkTwo);
    const run = runs.run(created.id);
    const statuses: string[] = [];
    const feed = run.feed({ onStatus: (status) => statuses.push(status) });
    const seen: FeedEvent[] = [];
    const reading = (async () => {
      for await (const event of feed) {
        seen.push(event);
        if (event.type === 'run.completed') break;
      }
    })();
    await eventually(() => seen.some((event) => event.type === 'run.attention_required'));
    sockets[0]!.terminate();
    const member = client.workspace(kernel.workspace.id).decisions;
    for (const decision of await member.list()) {
      if (decision.run_id === created.id && decision.isApproval()) await decision.deny();
    }
    await reading;
    expect(sockets.length).toBeGreaterThanOrEqual(2);
    expect(statuses).toContain('reconnecting');
    const seqs = seen.map((event) => event.seq);
    for (let i = 1; i < seqs.length; i += 1) expect(seqs[i]).toBeGreaterThan(seqs[i - 1]!);
    const all = await run.events({ limit: 1000 });
    expect(seqs).toEqual(all.map((event) => event.seq));
    expect(feed.lastSeq).toBe(seqs.at(-1));
  });

  it('keeps a feed and an executor going across a kernel restart', async () => {
    const client = createClient({ url: kernel.url, token: kernel.workspace.tokens.member });
    const runs = client.workspace(kernel.workspace.id).runs;
    const executor = createExecutor({
      url: kernel.url,
      token: kernel.workspace.tokens.executor,
      tools: { deploy: () => 'deployed' },
    });
    await executor.ready;
    const created = await runs.create(
      scriptedRun('ask', [
        { tool_calls: [{ name: 'deploy' }] },
        { final: 'shipped', expect: 'deployed' },
      ]),
    );
    const run = runs.run(created.id);
    const statuses: string[] = [];
    const seen: FeedEvent[] = [];
    const reading = (async () => {
      for await (const event of run.feed({ onStatus: (status) => statuses.push(status) })) {
        seen.push(event);
        if (event.type === 'run.completed') break;
      }
    })();
    await eventually(() => seen.some((event) => event.type === 'task.parked'));
    await kernel.restart();
    const [decision] = await eventually(async () =>
      (await client.workspace(kernel.workspace.id).decisions.list()).filter(
        (d) => d.run_id === created.id,
      ),
    );
    if (!decision?.isApproval()) throw new Error('expected the park to survive the restart');
    await decision.approve();
    await reading;
    await executor.close();
    expect(statuses).toContain('reconnecting');
    expect((await run.get()).final_answer).toBe('shipped');
    const all = await run.events({ limit: 1000 });
    expect(seen.map((event) => event.seq)).toEqual(all.map((event) => event.seq));
  });

  it('resumes a feed after a sequence number it was given', async () => {
    const client = createClient({ url: kernel.url, token: kernel.workspace.tokens.agent });
    const runs = client.workspace(kernel.workspace.id).runs;
    const created = await runs.create(parkTwo);
    const run = runs.run(created.id);
    const history = await run.events();
    const middle = history[2]!.seq;
    const feed = run.feed({ after: middle });
    const first = await feed.next();
    feed.close();
    expect(first.done).toBe(false);
    expect((first.value as FeedEvent).seq).toBe(history[3]!.seq);
    expect(await feed.next()).toEqual({ value: undefined, done: true });
    await run.stop();
  });

  it("starts a feed at the head with after: 'latest', skipping the history", async () => {
    const client = createClient({ url: kernel.url, token: kernel.workspace.tokens.member });
    const runs = client.workspace(kernel.workspace.id).runs;
    const created = await runs.create(parkTwo);
    const run = runs.run(created.id);
    const history = await run.events();
    const opened: string[] = [];
    const feed = run.feed({ after: 'latest', onStatus: (status) => opened.push(status) });
    await eventually(async () => opened.includes('open'));
    await run.stop();
    const first = await feed.next();
    feed.close();
    const event = first.value as FeedEvent;
    expect(event.seq).toBeGreaterThan(history.at(-1)!.seq);
    expect(event.type).not.toBe('task.parked');
    expect(feed.lastSeq).toBeGreaterThanOrEqual(event.seq);
  });

  it('pauses the socket for a slow reader and resumes after the last queued event', async () => {
    const client = createClient({ url: kernel.url, token: kernel.workspace.tokens.member });
    const runs = client.workspace(kernel.workspace.id).runs;
    const created = await runs.create(parkTwo);
    const run = runs.run(created.id);
    const statuses: string[] = [];
    const feed = run.feed({ highWaterMark: 3, onStatus: (status) => statuses.push(status) });
    await eventually(() => statuses.includes('paused'));
    await run.stop();
    const seen: FeedEvent[] = [];
    for await (const event of feed) {
      seen.push(event);
      if (event.type === 'run.canceled') break;
    }
    expect(statuses.filter((status) => status === 'open').length).toBeGreaterThanOrEqual(2);
    const all = await run.events({ limit: 1000 });
    expect(seen.map((event) => event.seq)).toEqual(all.map((event) => event.seq));
  });

  it('follows every run of a workspace on the workspace feed, until aborted', async () => {
    const client = createClient({ url: kernel.url, token: kernel.workspace.tokens.member });
    const workspace = client.workspace(kernel.workspace.id);
    const controller = new AbortController();
    const runIds = new Set<string>();
    const reading = (async () => {
      for await (const event of workspace.feed({ signal: controller.signal })) {
        runIds.add(event.run_id);
      }
    })();
    const a = await workspace.runs.create(parkTwo);
    const b = await workspace.runs.create(parkTwo);
    await eventually(() => runIds.has(a.id) && runIds.has(b.id));
    controller.abort();
    await reading;
    await workspace.runs.run(a.id).stop();
    await workspace.runs.run(b.id).stop();
  });
});
