import { getEventListeners } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultFetch } from './node-http.js';

/** The SDK's transport in Node, against a real node:http server on loopback. */
describe("the SDK's requests in Node (node:http, keep-alive)", () => {
  let server: Server;
  let base: string;
  const connections = new Set<unknown>();
  const received: { method: string; length: string | undefined; body: string; auth: string }[] = [];

  const bodyOf = (request: IncomingMessage) =>
    new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });

  beforeAll(async () => {
    server = createServer(async (request, response) => {
      connections.add(request.socket);
      const body = await bodyOf(request);
      received.push({
        method: request.method ?? '',
        length: request.headers['content-length'],
        body,
        auth: request.headers.authorization ?? '',
      });
      if (request.url === '/slow') return; // never answered: the caller aborts
      if (request.url === '/cut') {
        // Half an answer, then the connection drops.
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        response.write('{"partial":');
        setTimeout(() => request.socket.destroy(), 10);
        return;
      }
      if (request.url === '/split') {
        // A multi-byte character cut across two chunks of the answer.
        const bytes = Buffer.from(JSON.stringify({ text: 'héllo ✓' }), 'utf8');
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write(bytes.subarray(0, 5));
        setTimeout(() => response.end(bytes.subarray(5)), 10);
        return;
      }
      response.writeHead(request.url === '/missing' ? 404 : 200, {
        'content-type': 'application/json',
      });
      response.end(JSON.stringify({ echoed: body }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends a JSON body with its length in bytes and reads the answer, over one kept-alive socket', async () => {
    const body = JSON.stringify({ note: 'déjà vu ✓' });
    const first = await defaultFetch(new URL(`${base}/echo`), {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body,
    });
    expect(first.ok).toBe(true);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ echoed: body });
    expect(received.at(-1)).toEqual({
      method: 'POST',
      length: String(Buffer.byteLength(body)),
      body,
      auth: 'Bearer t',
    });
    const second = await defaultFetch(`${base}/echo`, { method: 'GET' });
    expect(await second.text()).toBe(JSON.stringify({ echoed: '' }));
    expect(connections.size).toBe(1);
  });

  it('decodes an answer whose characters are cut across chunks, and reports a status that is not ok', async () => {
    expect(await (await defaultFetch(`${base}/split`)).json()).toEqual({ text: 'héllo ✓' });
    const missing = await defaultFetch(`${base}/missing`);
    expect(missing.ok).toBe(false);
    expect(missing.status).toBe(404);
  });

  it("rejects with the socket's code as the cause when nothing listens", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const failure = await defaultFetch(`http://127.0.0.1:${port}/`).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as { cause?: { code?: string } }).cause?.code).toBe('ECONNREFUSED');
  });

  it("rejects with the signal's reason when the caller aborts, before or during the request", async () => {
    const early = new AbortController();
    early.abort();
    await expect(defaultFetch(`${base}/echo`, { signal: early.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
    const late = new AbortController();
    const pending = defaultFetch(`${base}/slow`, { signal: late.signal });
    setTimeout(() => late.abort(), 20);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('leaves no listener on a long-lived signal, whether the answer came whole or was cut', async () => {
    const session = new AbortController();
    for (let i = 0; i < 20; i += 1) {
      const answer = await defaultFetch(`${base}/echo`, { signal: session.signal });
      expect(answer.ok).toBe(true);
    }
    const cut = await defaultFetch(`${base}/cut`, { signal: session.signal }).catch(
      (error: unknown) => error,
    );
    expect(cut).toBeInstanceOf(Error);
    expect(getEventListeners(session.signal, 'abort')).toHaveLength(0);
  });
});
