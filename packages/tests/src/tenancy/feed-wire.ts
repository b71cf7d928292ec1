import { WebSocket } from 'ws';

/** A socket's refusal (the upgrade's answer), or the socket with every message it received. */
export type Opened =
  | { refused: { status: number; body: string }; socket: null }
  | { refused: null; socket: OpenSocket };

/** An open feed or cable socket. */
export interface OpenSocket {
  messages: Record<string, unknown>[];
  close(): void;
  /** Resolves with the close code once the socket closed, whoever closed it. */
  closed: Promise<number>;
}

/** Opens a feed or cable socket (`path` on the kernel at `url`) with a bearer token. */
export function openSocket(url: string, path: string, token: string): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}${path}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const messages: Record<string, unknown>[] = [];
    const closed = new Promise<number>((settle) => ws.on('close', (code) => settle(code)));
    ws.on('message', (data) => messages.push(JSON.parse(data.toString())));
    ws.on('open', () =>
      resolve({ refused: null, socket: { messages, close: () => ws.close(), closed } }),
    );
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      res.on('end', () =>
        resolve({ refused: { status: res.statusCode ?? 0, body }, socket: null }),
      );
    });
    ws.on('error', reject);
  });
}

/** A tRPC `runs.feed` subscription: its status, and the text it sent until `enough` held or it ended. */
export async function readSubscription(options: {
  url: string;
  token: string;
  input: Record<string, unknown>;
  enough: (text: string) => boolean;
}): Promise<{ status: number; text: string }> {
  const controller = new AbortController();
  const input = encodeURIComponent(JSON.stringify(options.input));
  const response = await fetch(`${options.url}/trpc/runs.feed?input=${input}`, {
    headers: { authorization: `Bearer ${options.token}`, accept: 'text/event-stream' },
    signal: controller.signal,
  });
  let text = '';
  const decoder = new TextDecoder();
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
      if (options.enough(text)) break;
    }
  } finally {
    controller.abort();
  }
  return { status: response.status, text };
}
