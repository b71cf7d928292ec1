import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { OpenConnections } from './http-connections.js';

/**
 * A server that answers `/stream` with a response it never ends, `/slow` after 150 ms, anything
 * else at once; `requested` lists the paths whose requests it has started.
 */
async function serve(
  connections: OpenConnections,
): Promise<{ server: Server; port: number; requested: string[] }> {
  const requested: string[] = [];
  const server = createServer((req, res) => {
    connections.started(req.socket, res);
    requested.push(req.url ?? '');
    if (req.url === '/stream') {
      connections.streaming(req.socket);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      return;
    }
    if (req.url === '/slow') setTimeout(() => res.end('slow'), 150);
    else res.end('ok');
  });
  server.on('connection', (socket: Socket) => connections.accepted(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, requested };
}

/** Opens `/stream`, waits for its first bytes, then drops the connection; resolves once the server saw its response close. */
function dropStream(port: number, closed: Promise<void>): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', path: '/stream' }, (res) => {
      res.once('data', () => {
        req.destroy();
        closed.then(resolve, reject);
      });
    });
    req.on('error', () => {});
    req.end();
  });
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i += 1) await new Promise((r) => setTimeout(r, 5));
};

describe('OpenConnections', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  it('forgets a connection whose client dropped a stream, though its response closes after it', async () => {
    const connections = new OpenConnections();
    const served = await serve(connections);
    server = served.server;
    for (let i = 0; i < 20; i += 1) {
      let responseClosed!: () => void;
      const closed = new Promise<void>((resolve) => {
        responseClosed = resolve;
      });
      served.server.once('request', (_req, res) =>
        res.once('close', () => setImmediate(responseClosed)),
      );
      await dropStream(served.port, closed);
    }
    await until(() => connections.size === 0);
    expect(connections.size).toBe(0);
  });

  it('ends idle connections and streams, and leaves a request in flight to finish', async () => {
    const connections = new OpenConnections();
    const served = await serve(connections);
    server = served.server;
    const at = { port: served.port, host: '127.0.0.1' };
    const keptAlive = new Agent({ keepAlive: true });
    // A kept-alive connection with no request in flight.
    await new Promise<void>((resolve) => {
      request({ ...at, path: '/', agent: keptAlive }, (res) => {
        res.resume();
        res.on('end', resolve);
      }).end();
    });
    const streamClosed = new Promise<void>((resolve, reject) => {
      request({ ...at, path: '/stream', agent: false }, (res) => {
        res.on('data', () => {});
        res.on('close', resolve);
      })
        .on('error', reject)
        .end();
    });
    const slowAnswer = new Promise<string>((resolve, reject) => {
      request({ ...at, path: '/slow', agent: false }, (res) => {
        let body = '';
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve(body));
      })
        .on('error', reject)
        .end();
    });
    // Accepted is not enough: a connection whose request the server has not started yet is idle.
    const inFlight = () => ['/stream', '/slow'].every((path) => served.requested.includes(path));
    await until(() => connections.size === 3 && inFlight());
    expect(connections.size).toBe(3);
    expect(inFlight()).toBe(true);
    connections.endIdle();
    await streamClosed;
    await expect(slowAnswer).resolves.toBe('slow');
    // Its client asked for `connection: close`: once answered, nothing is left open.
    await until(() => connections.size === 0);
    expect(connections.size).toBe(0);
    keptAlive.destroy();
  });
});
