import { createServer, type RequestListener, type Server } from 'node:http';
import {
  type AirlockError,
  createClient,
  createExecutor,
  type Executor,
  type ExecutorOptions,
  isConnectionError,
  isNotFoundError,
  isRequestRefusedError,
  isServerError,
} from '@airlock/sdk';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { eventually, scriptedRun, startTestKernel } from '../support/kernel.js';
import { rejectionOf, useMemberKernel, within } from '../support/member-kernel.js';

/**
 * An executor whose kernel (or what answers at its url) refuses it in a way asking again
 * cannot mend ends: `ready` and `closed` reject with the typed error, onError hears it
 * once, and nothing more is sent. Before, its safety-net poll kept claiming and telling
 * onError for ever. A failure that passes (no answer, a 5xx) is retried until close().
 * "Nothing more" is measured against a working executor polling as often, not the clock.
 */
describe('an executor refused for good', () => {
  // A small body limit lets a real kernel refuse a claim for good (413 payload_too_large).
  const file = useMemberKernel({ bodyLimit: 4096 });
  const started: Executor[] = [];
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((executor) => executor.close()));
  });
  afterAll(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  /** An executor polling every 20 ms, what it told onError and how many requests it sent. */
  const serve = (options: Partial<ExecutorOptions> & { url: string }) => {
    const errors: Error[] = [];
    let requests = 0;
    const executor = createExecutor({
      token: file.kernel.workspace.tokens.executor,
      tools: { bash: () => 'ran' },
      pollMs: 20,
      onError: (error) => errors.push(error),
      fetch: (input, init) => {
        requests += 1;
        return fetch(input, init);
      },
      ...options,
    });
    started.push(executor);
    return { executor, errors, requests: () => requests };
  };

  /** Waits until a working executor has polled twenty times more. */
  const twentyPolls = async () => {
    const control = serve({ url: file.kernel.url });
    await control.executor.ready;
    const from = control.requests();
    await eventually(() => control.requests() >= from + 20, { what: 'twenty polls' });
    expect(control.errors).toEqual([]);
  };

  /** A plain HTTP server on loopback answering every request (a WebSocket upgrade included). */
  const plainServer = async (listener: RequestListener) => {
    let requests = 0;
    const server = createServer((request, response) => {
      requests += 1;
      listener(request, response);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    return { port, requests: () => requests };
  };

  /**
   * Expects the executor ended with one error: closed (and ready, unless the cable could
   * connect first) rejects with it, onError heard it once, nothing more went out.
   */
  const expectEnded = async (
    served: ReturnType<typeof serve>,
    { mayConnect = false } = {},
  ): Promise<AirlockError> => {
    const ended = (await rejectionOf(served.executor.closed)) as AirlockError;
    const ready = await served.executor.ready.then(
      () => 'connected',
      (error: unknown) => error,
    );
    expect(ready).toBe(mayConnect && ready === 'connected' ? 'connected' : ended);
    const sent = served.requests();
    await twentyPolls();
    expect(served.errors).toEqual([ended]);
    expect(served.requests()).toBe(sent);
    return ended;
  };

  it('a url under another path of the kernel (404 on every route): ends with NotFoundError not_found', async () => {
    const served = serve({ url: `${file.kernel.url}/airlock` });
    const ended = await expectEnded(served);
    expect(isNotFoundError(ended)).toBe(true);
    expect(ended).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('claims the kernel always refuses (413 payload_too_large): ends with RequestRefusedError', async () => {
    const served = serve({ url: file.kernel.url, tools: { ['t'.repeat(5000)]: () => 'ran' } });
    const ended = await expectEnded(served, { mayConnect: true });
    expect(isRequestRefusedError(ended)).toBe(true);
    expect(ended).toMatchObject({ code: 'payload_too_large', status: 413 });
  });

  it('a plain web server answering 400 with a stable code: ends with its code', async () => {
    const web = await plainServer((_request, response) => {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { code: 'invalid_input', detail: 'not here' } }));
    });
    const served = serve({ url: `http://127.0.0.1:${web.port}` });
    const ended = await expectEnded(served);
    expect(ended).toMatchObject({ code: 'invalid_input', status: 400 });
  });

  it('https to a server speaking plain http (a TLS failure): ends with ConnectionError', async () => {
    const web = await plainServer((_request, response) => {
      response.writeHead(200);
      response.end('{}');
    });
    const served = serve({ url: `https://127.0.0.1:${web.port}` });
    const ended = await expectEnded(served);
    expect(isConnectionError(ended)).toBe(true);
    expect(ended.code).toBe('connection_failed');
    expect(web.requests()).toBe(0);
  });

  it('a server answering 503 is tried again and again until close()', async () => {
    const web = await plainServer((_request, response) => {
      response.writeHead(503, { 'content-type': 'text/plain' });
      response.end('busy');
    });
    const served = serve({ url: `http://127.0.0.1:${web.port}` });
    let settled = false;
    void served.executor.closed.then(
      () => (settled = true),
      () => (settled = true),
    );
    // The first connection never got through: ready says why, as for a kernel not reached.
    const notReady = await rejectionOf(within(served.executor.ready, 20_000));
    expect(isServerError(notReady)).toBe(true);
    expect(notReady).toMatchObject({ code: 'unavailable', status: 503 });
    await eventually(() => web.requests() >= 10, { what: 'ten tries' });
    expect(settled).toBe(false);
    await served.executor.close();
    await served.executor.closed;
  });

  it('a 404 once the url has reached the kernel (a proxy whose route is gone meanwhile) is tried again', async () => {
    const kernel = await startTestKernel();
    try {
      const port = new URL(kernel.url).port;
      const served = serve({ url: kernel.url, token: kernel.workspace.tokens.executor });
      await served.executor.ready;
      await kernel.stop();
      // What answers at the kernel's address meanwhile: a web server with no such route.
      let answered404 = 0;
      const stranger = createServer((_request, response) => {
        answered404 += 1;
        response.writeHead(404, { 'content-type': 'text/plain' });
        response.end('404 page not found');
      });
      await new Promise<void>((resolve) => stranger.listen(Number(port), '127.0.0.1', resolve));
      await eventually(() => answered404 >= 5, { what: 'five 404s' });
      stranger.closeAllConnections();
      await new Promise<void>((resolve) => stranger.close(() => resolve()));
      await kernel.start();
      const runs = createClient({
        url: kernel.url,
        token: kernel.workspace.tokens.member,
      }).workspace(kernel.workspace.id).runs;
      const created = await runs.create(
        scriptedRun('bypass', [{ tool_calls: [{ name: 'bash' }] }, { final: 'done' }]),
      );
      const run = await eventually(
        async () => {
          const view = await runs.run(created.id).get();
          return view.state !== 'running' && view;
        },
        { what: 'the run to end' },
      );
      expect(run.state).toBe('completed');
      const [task] = await runs.run(created.id).tasks();
      expect(task).toMatchObject({ state: 'succeeded', result: 'ran' });
      expect(served.errors.some(isNotFoundError)).toBe(true);
    } finally {
      await Promise.all(started.splice(0).map((executor) => executor.close()));
      await kernel.close();
    }
  });
});
