import { WebSocket } from 'ws';

// biome-ignore lint/suspicious/noExplicitAny: feed messages are read loosely and asserted on.
export type Message = Record<string, any>;

/** A test's WebSocket: every message it received, in order. */
export interface Socket {
  messages: Message[];
  close(): void;
}

/** Opens a feed or cable socket with a bearer token; rejects with `status N` when refused. */
export function connect(url: string, token: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url.replace(/^http/, 'ws'), {
      headers: { authorization: `Bearer ${token}` },
    });
    const messages: Message[] = [];
    ws.on('message', (data) => messages.push(JSON.parse(data.toString())));
    ws.on('open', () => resolve({ messages, close: () => ws.close() }));
    ws.on('unexpected-response', (_req, res) => reject(new Error(`status ${res.statusCode}`)));
    ws.on('error', reject);
  });
}
