import { WebSocket } from 'ws';
import { post } from './http-client.js';

/** Feed subscribers held open during a measurement, counting what they receive. */
export interface Subscribers {
  /** Event frames received so far, by every subscriber together. */
  received(): number;
  close(): Promise<void>;
}

/**
 * Opens `count` lifecycle-feed sockets at the head: `all` follow the whole
 * workspace (they receive every event), `quiet` follow `quietRunId`, a run
 * that has ended and never changes (they receive nothing). The kernel answers
 * `run_not_found` for a run it does not hold, so the quiet run must be real.
 */
export async function openSubscribers(options: {
  url: string;
  workspaceId: string;
  token: string;
  count: number;
  kind: 'all' | 'quiet';
  quietRunId?: string;
}): Promise<Subscribers> {
  if (options.kind === 'quiet' && !options.quietRunId) {
    throw new Error('quiet subscribers need the id of a run to follow');
  }
  let received = 0;
  const sockets: WebSocket[] = [];
  const base = options.url.replace(/^http/, 'ws');
  const open = () =>
    new Promise<void>((resolve, reject) => {
      const query = new URLSearchParams({ after: 'latest', access_token: options.token });
      if (options.kind === 'quiet') query.set('run_id', options.quietRunId as string);
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
      socket.once('unexpected-response', (_request, response) =>
        reject(new Error(`feed socket refused: HTTP ${response.statusCode}`)),
      );
      sockets.push(socket);
    });
  for (let i = 0; i < options.count; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, options.count - i) }, () => open()));
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

/** Makes a scripted run that answers at once and ends: a run whose feed never changes again. */
async function endedRun(server: { url: string; ws: string; agent: string }): Promise<string> {
  const run = await post(server.url, server.agent, `${server.ws}/runs`, {
    approval_mode: 'ask',
    input: 'quiet',
    provider: { kind: 'scripted', rounds: [{ final: 'quiet' }] },
  });
  return run.id;
}

/** A feed case's subscribers on a server's workspace (none when the case has no `kind`). */
export async function subscribersOf(
  server: { url: string; ws: string; workspaceId: string; agent: string; member: string },
  c: { kind?: 'all' | 'quiet'; count: number },
): Promise<Subscribers | undefined> {
  if (!c.kind || c.count === 0) return undefined;
  return openSubscribers({
    url: server.url,
    workspaceId: server.workspaceId,
    token: server.member,
    count: c.count,
    kind: c.kind,
    quietRunId: c.kind === 'quiet' ? await endedRun(server) : undefined,
  });
}
