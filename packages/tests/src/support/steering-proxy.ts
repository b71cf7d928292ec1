import { createServer, request as forward, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';

/**
 * What a {@link SteeringProxy} does with one request: pass it on, hold it
 * unanswered (as a body that never finishes arriving on a slow link), or pass
 * it on and then drop the kernel's answer (`drop_answer`: the connection
 * closes) or hold it back (`hold_answer`): the request took effect, its
 * caller never hears so. `{rewrite}` passes it on and answers the kernel's
 * answer body as rewritten (a kernel of other wording).
 */
export type Steer =
  | 'forward'
  | 'stall'
  | 'drop_answer'
  | 'hold_answer'
  | { rewrite: (body: string) => string };

/** A request as the proxy's steering function reads it. */
export interface SteeredRequest {
  method: string;
  path: string;
  body: string;
}

/** A loopback HTTP proxy in front of a kernel that treats each request as it is told to. */
export interface SteeringProxy {
  /** The proxy's base URL: talk to the kernel through it (its cable too). */
  readonly url: string;
  /** Drops every connection and stops listening. */
  close(): Promise<void>;
}

/**
 * Starts a {@link SteeringProxy} on 127.0.0.1 in front of the kernel at
 * `target`; WebSocket upgrades (the executor cable) are passed on untouched.
 */
export async function startSteeringProxy(
  target: string,
  steer: (request: SteeredRequest) => Steer,
): Promise<SteeringProxy> {
  const upstream = new URL(target);
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => sockets.delete(socket));
  };
  const server = createServer(async (incoming, outgoing) => {
    const body = await readBody(incoming);
    const verdict = steer({ method: incoming.method ?? 'GET', path: incoming.url ?? '/', body });
    if (verdict === 'stall') return;
    const sent = forward(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: upstream.host },
      },
      (answer) => {
        if (verdict === 'drop_answer' || verdict === 'hold_answer') {
          answer.resume();
          if (verdict === 'drop_answer') answer.on('end', () => incoming.socket.destroy());
          return;
        }
        if (typeof verdict === 'object') {
          void readBody(answer).then((body) => {
            const rewritten = verdict.rewrite(body);
            const { 'transfer-encoding': _chunked, ...headers } = answer.headers;
            outgoing.writeHead(answer.statusCode ?? 502, {
              ...headers,
              'content-length': String(Buffer.byteLength(rewritten)),
            });
            outgoing.end(rewritten);
          });
          return;
        }
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    sent.on('error', () => incoming.socket.destroy());
    sent.end(body);
  });
  server.on('connection', track);
  server.on('upgrade', (incoming: IncomingMessage, client: Socket, head: Buffer) => {
    const kernel = connect(Number(upstream.port), upstream.hostname);
    track(kernel);
    const lines = [`${incoming.method} ${incoming.url} HTTP/1.1`];
    for (let i = 0; i < incoming.rawHeaders.length; i += 2) {
      lines.push(`${incoming.rawHeaders[i]}: ${incoming.rawHeaders[i + 1]}`);
    }
    kernel.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length > 0) kernel.write(head);
    kernel.pipe(client);
    client.pipe(kernel);
    client.on('close', () => kernel.destroy());
    kernel.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function readBody(incoming: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
