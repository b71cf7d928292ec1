import { createServer, type Server } from 'node:http';
import { createClient, createExecutor, isServerError, ServerError } from '@airlock/sdk';
import { createAiSdkAirlock } from '@airlock/sdk/ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * A url that reaches a web server other than the kernel (a web app that answers every path,
 * a WebSocket upgrade included, with 200 and its page) is a mistake asking again does not
 * mend: the SDK's answers end with a ServerError saying so. The executor's `ready`, a feed
 * and a decisions watcher read it as a passing failure before and tried again for ever,
 * `ready` never settling.
 */
describe('the SDK pointed at a web server that is not the kernel', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<!doctype html><p>another app</p>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** The error an answer outside the kernel's form gives: internal, the 200, and what to check. */
  const notTheKernel = () =>
    expect.objectContaining({
      code: 'internal',
      status: 200,
      detail: expect.stringMatching(/is url the kernel's base URL\?/),
    });

  it('a read fails with a ServerError that says to check the url', async () => {
    const client = createClient({ url, token: 't' });
    const read = await client
      .workspace('ws')
      .runs.list()
      .catch((error: unknown) => error);
    expect(read).toBeInstanceOf(ServerError);
    expect(read).toEqual(notTheKernel());
    const called = await client
      .call('runs.get', { workspace_id: 'ws', run_id: 'r' })
      .catch((error: unknown) => error);
    expect(called).toEqual(notTheKernel());
  });

  it("an executor's ready rejects, telling onError once", { timeout: 30_000 }, async () => {
    const told: Error[] = [];
    const executor = createExecutor({
      url,
      token: 't',
      tools: { bash: () => 'ran' },
      onError: (error) => told.push(error),
    });
    try {
      const error = await executor.ready.then(
        () => null,
        (reason: unknown) => reason,
      );
      expect(isServerError(error)).toBe(true);
      expect(error).toEqual(notTheKernel());
      expect(told).toEqual([error]);
      // It ended: asking again would get the same page.
      expect(
        await executor.closed.then(
          () => null,
          (reason: unknown) => reason,
        ),
      ).toBe(error);
    } finally {
      await executor.close();
    }
  });

  it('a feed and a decisions watcher end with the error', { timeout: 30_000 }, async () => {
    const workspace = createClient({ url, token: 't' }).workspace('ws');
    const feed = workspace.feed({ after: 0 });
    const fed = (async () => {
      for await (const _event of feed) {
        // nothing arrives
      }
    })().catch((error: unknown) => error);
    const watched = (async () => {
      for await (const _decision of workspace.decisions) {
        // nothing arrives
      }
    })().catch((error: unknown) => error);
    try {
      expect(await fed).toEqual(notTheKernel());
      expect(await watched).toEqual(notTheKernel());
    } finally {
      feed.close();
    }
  });

  it("a framework adapter's resume reads no decision from it: it throws, never a deny", async () => {
    // A deny written into the framework's saved state would refuse for good a call a person may approve.
    const { session } = createAiSdkAirlock({ url, token: 't', sessionId: 'chat-1' });
    const call = { name: 'bash', input: { command: 'ls' }, callId: 'call-1' };
    expect(await session.checkParked(call).catch((error: unknown) => error)).toEqual(
      notTheKernel(),
    );
    expect(await session.decided(call).catch((error: unknown) => error)).toEqual(notTheKernel());
    // A check before the call runs still fails closed: a deny naming the answer.
    expect(await session.check(call)).toMatchObject({ verdict: 'deny', code: 'internal' });
  });
});
