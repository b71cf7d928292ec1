import type { AddressInfo } from 'node:net';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';

/**
 * A TCP relay on loopback between the kernel and PostgreSQL that can be cut:
 * the open sessions drop and new ones are refused, as when the server or the
 * network goes away, and then let through again on the same port.
 */
export async function startCuttableRelay(target: { host: string; port: number }) {
  const sockets = new Set<Socket>();
  let server: Server;
  const listen = (port: number) =>
    new Promise<number>((settle) => {
      server = createServer((client) => {
        const upstream = tcpConnect(target.port, target.host);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => {});
        }
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      server.listen(port, '127.0.0.1', () => settle((server.address() as AddressInfo).port));
    });
  const port = await listen(0);
  return {
    port,
    async cut() {
      await new Promise<void>((settle) => {
        server.close(() => settle());
        for (const socket of sockets) socket.destroy();
      });
    },
    async restore() {
      await listen(port);
    },
  };
}

/** A cuttable relay in front of a PostgreSQL database, with the URL that reaches it through the relay. */
export async function startPostgresRelay(databaseUrl: string) {
  const direct = new URL(databaseUrl);
  const relay = await startCuttableRelay({
    host: direct.hostname,
    port: Number(direct.port || 5432),
  });
  const relayed = new URL(direct);
  relayed.hostname = '127.0.0.1';
  relayed.port = String(relay.port);
  return { ...relay, url: relayed.toString() };
}
