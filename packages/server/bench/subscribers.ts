import { WebSocket } from 'ws';

/** Feed subscribers held open during a measurement, counting what they receive. */
export interface Subscribers {
  /** Event frames received so far, by every subscriber together. */
  received(): number;
  close(): Promise<void>;
}

/**
 * Opens `count` lifecycle-feed sockets at the head: `all` follow the whole
 * workspace (they receive every event), `quiet` follow one run each that
 * never changes (they receive nothing).
 */
export async function openSubscribers(options: {
  url: string;
  workspaceId: string;
  token: string;
  count: number;
  kind: 'all' | 'quiet';
}): Promise<Subscribers> {
  let received = 0;
  const sockets: WebSocket[] = [];
  const base = options.url.replace(/^http/, 'ws');
  const open = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const query = new URLSearchParams({ after: 'latest', access_token: options.token });
      if (options.kind === 'quiet') query.set('run_id', `run_quiet_${i}`);
      const socket = new WebSocket(
        `${base}/api/v1/workspaces/${options.workspaceId}/feed?${query}`,
      );
      socket.on('message', (data) => {
        // `ready` starts every socket; count events only (a cheap prefix test, no parse).
        if ((data as Buffer).subarray(0, 16).toString('latin1').startsWith('{"type":"event"')) {
          received += 1;
        } else resolve();
      });
      socket.once('error', reject);
      sockets.push(socket);
    });
  for (let i = 0; i < options.count; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, options.count - i) }, (_, j) => open(i + j)),
    );
  }
  return {
    received: () => received,
    async close() {
      await Promise.all(
        sockets.map(
          (socket) =>
            new Promise<void>((resolve) => {
              if (socket.readyState === WebSocket.CLOSED) resolve();
              else {
                socket.once('close', () => resolve());
                socket.terminate();
              }
            }),
        ),
      );
    },
  };
}

/** A feed case's subscribers on a server's workspace (none when the case has no `kind`). */
export function subscribersOf(
  server: { url: string; workspaceId: string; member: string },
  c: { kind?: 'all' | 'quiet'; count: number },
): Promise<Subscribers | undefined> {
  if (!c.kind || c.count === 0) return Promise.resolve(undefined);
  return openSubscribers({
    url: server.url,
    workspaceId: server.workspaceId,
    token: server.member,
    count: c.count,
    kind: c.kind,
  });
}
