import { createServer, type Server, type Socket } from 'node:net';
import {
  ConnectionError,
  createClient,
  createExecutor,
  DeadlineExceededError,
  isConnectionError,
  isDeadlineExceededError,
  type SocketStatus,
} from '@airlock/sdk';
import { createAiSdkAirlock } from '@airlock/sdk/ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rejectionOf, within } from '../support/member-kernel.js';

/** A kernel that accepts connections on loopback and never answers: a hung process, a stuck proxy. */
describe('the SDK against a kernel that accepts and never answers', () => {
  let silent: Server;
  let url: string;
  const sockets = new Set<Socket>();
  let connections = 0;

  beforeAll(async () => {
    silent = createServer((socket) => {
      connections += 1;
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it('a read fails with DeadlineExceededError (deadline_exceeded) after the client timeout', async () => {
    const workspace = createClient({ url, token: 'x', timeoutMs: 300 }).workspace('ws');
    const started = Date.now();
    const error = await within(rejectionOf(workspace.runs.list()), 5000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(error).toBeInstanceOf(DeadlineExceededError);
    expect(isDeadlineExceededError(error)).toBe(true);
    // Still a ConnectionError (no answer arrived), so code that handles those handles this.
    expect(error).toBeInstanceOf(ConnectionError);
    expect(isConnectionError(error)).toBe(true);
    expect(error).toMatchObject({ code: 'deadline_exceeded', status: null, timeoutMs: 300 });
    expect((error as DeadlineExceededError).detail).toContain(url);
  });

  it('a write and client.call time out too; a per-request timeoutMs overrides the client one', async () => {
    const client = createClient({ url, token: 'x', timeoutMs: 60_000 });
    const run = client.workspace('ws').runs.run('run_1');
    const stop = await within(rejectionOf(run.stop({ timeoutMs: 200 })), 5000);
    expect(stop).toMatchObject({ code: 'deadline_exceeded', timeoutMs: 200 });
    expect((stop as DeadlineExceededError).detail).toContain('may have been applied');
    const read = await within(
      rejectionOf(client.call('runs.get', { workspace_id: 'ws', run_id: 'r' }, { timeoutMs: 200 })),
      5000,
    );
    expect(read).toMatchObject({ code: 'deadline_exceeded', timeoutMs: 200 });
    const task = await within(rejectionOf(run.task('t1', { timeoutMs: 200 })), 5000);
    expect(task).toBeInstanceOf(DeadlineExceededError);
  });

  it("a read aborts with the signal's reason, before or while it waits", async () => {
    const run = createClient({ url, token: 'x', timeoutMs: null }).workspace('ws').runs.run('r');
    const controller = new AbortController();
    const pending = rejectionOf(run.get({ signal: controller.signal }));
    setTimeout(() => controller.abort(new Error('the user left')), 100);
    expect(await within(pending, 5000)).toMatchObject({ message: 'the user left' });
    const early = await rejectionOf(run.tasks({ signal: controller.signal }));
    expect(early).toMatchObject({ message: 'the user left' });
    const listed = await within(
      rejectionOf(
        createClient({ url, token: 'x' })
          .workspace('ws')
          .decisions.list({ signal: AbortSignal.timeout(100) }),
      ),
      5000,
    );
    expect(listed).toMatchObject({ name: 'TimeoutError' });
  });

  it('a feed whose handshake never completes drops the socket and reconnects', async () => {
    const before = connections;
    const statuses: SocketStatus[] = [];
    const feed = createClient({ url, token: 'x', timeoutMs: 300 })
      .workspace('ws')
      .feed({ onStatus: (status) => statuses.push(status) });
    try {
      const deadline = Date.now() + 5000;
      // The socket is dropped, and the reconnect's check reaches the kernel again.
      while (connections - before < 2 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(statuses).toContain('reconnecting');
      expect(connections - before).toBeGreaterThanOrEqual(2);
    } finally {
      feed.close();
    }
  });

  it("an executor's timeoutMs bounds its cable's handshake and its requests: ready rejects with DeadlineExceededError", async () => {
    const executor = createExecutor({
      url,
      token: 'x',
      timeoutMs: 300,
      pollMs: 60_000,
      tools: { bash: () => 'ran' },
    });
    try {
      // The cable is dropped after 300 ms (not the 30 s default), and the reconnect's check times out.
      const ready = await within(rejectionOf(executor.ready), 5000);
      expect(ready).toBeInstanceOf(DeadlineExceededError);
      expect(ready).toMatchObject({ code: 'deadline_exceeded', timeoutMs: 300 });
      const take = await within(rejectionOf(executor.take('run_1', 't1')), 5000);
      expect(take).toMatchObject({ code: 'deadline_exceeded', timeoutMs: 300 });
    } finally {
      await executor.close({ abort: true });
    }
  });
  it("a framework adapter's timeoutMs bounds its check: the call is denied with deadline_exceeded", async () => {
    const airlock = createAiSdkAirlock({
      url,
      token: 'alk_agent_x',
      sessionId: 's',
      timeoutMs: 300,
    });
    const verdict = await within(
      airlock.session.check({ name: 'bash', input: { command: 'ls' }, callId: 'c1' }),
      5_000,
    );
    expect(verdict).toMatchObject({ verdict: 'deny', code: 'deadline_exceeded' });
  });
});
