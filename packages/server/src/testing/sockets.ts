import { CableMessageSchema, EXECUTOR_CABLE_PATH, FeedMessageSchema } from '@airlock/core';
import { WebSocket } from 'ws';

// biome-ignore lint/suspicious/noExplicitAny: feed messages are read loosely and asserted on.
export type Message = Record<string, any>;

/** A test's WebSocket: every message it received, in order. */
export interface Socket {
  messages: Message[];
  /**
   * Closes the socket.
   * @throws Error naming every message that broke its subscription's contract (core's
   *   FeedMessageSchema or CableMessageSchema): each socket test checks the wire as declared.
   */
  close(): void;
  /** Resolves with the close code and reason once the socket closed, whoever closed it. */
  closed: Promise<{ code: number; reason: string }>;
}

/** Opens a feed or cable socket with a bearer token; rejects with `status N` when refused. */
export function connect(url: string, token: string): Promise<Socket> {
  const contract =
    new URL(url).pathname === EXECUTOR_CABLE_PATH ? CableMessageSchema : FeedMessageSchema;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url.replace(/^http/, 'ws'), {
      headers: { authorization: `Bearer ${token}` },
    });
    const messages: Message[] = [];
    const broken: string[] = [];
    const closed = new Promise<{ code: number; reason: string }>((settle) => {
      ws.on('close', (code, reason) => settle({ code, reason: reason.toString() }));
    });
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString());
      const checked = contract.safeParse(message);
      if (!checked.success)
        broken.push(`${data.toString().slice(0, 200)}: ${checked.error.message}`);
      messages.push(message);
    });
    const close = () => {
      ws.close();
      if (broken.length > 0) {
        throw new Error(`messages outside the subscription's contract:\n${broken.join('\n')}`);
      }
    };
    ws.on('open', () => resolve({ messages, close, closed }));
    ws.on('unexpected-response', (_req, res) => reject(new Error(`status ${res.statusCode}`)));
    ws.on('error', reject);
  });
}
