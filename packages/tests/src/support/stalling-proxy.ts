import { connect, createServer, type Socket } from 'node:net';

/** A loopback TCP proxy in front of a kernel that can go silent, as a kernel that hangs mid-session. */
export interface StallingProxy {
  /** The proxy's base URL: talk to the kernel through it. */
  readonly url: string;
  /**
   * From now on nothing more reaches the kernel and nothing is answered: new
   * and kept-alive connections alike are accepted and left hanging.
   */
  stall(): void;
  /** Drops every connection and stops listening. */
  close(): Promise<void>;
}

/** Starts a {@link StallingProxy} on 127.0.0.1 in front of the kernel at `target`. */
export async function startStallingProxy(target: string): Promise<StallingProxy> {
  const upstream = new URL(target);
  const sockets = new Set<Socket>();
  let stalled = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => sockets.delete(socket));
  };
  const server = createServer((client) => {
    track(client);
    const kernel = connect(Number(upstream.port), upstream.hostname);
    track(kernel);
    // Bytes after the stall are swallowed: the request never reaches the kernel.
    client.on('data', (chunk) => {
      if (!stalled) kernel.write(chunk);
    });
    kernel.on('data', (chunk) => client.write(chunk));
    client.on('close', () => kernel.destroy());
    kernel.on('close', () => {
      if (!stalled) client.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    stall() {
      stalled = true;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
