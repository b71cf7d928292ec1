import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

interface Opened {
  status: number;
  retryAfter?: string | undefined;
  detail?: string | undefined;
  socket?: WebSocket;
}

/**
 * Opens a socket and keeps it open: 101 with the socket, else the refusal's status, header and
 * detail. With `autoPong` false the socket answers no ping (a client that vanished without a close).
 */
function open(url: string, token: string, autoPong = true): Promise<Opened> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers: { authorization: `Bearer ${token}` }, autoPong });
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      res.on('end', () => {
        resolve({
          status: res.statusCode ?? 0,
          retryAfter: res.headers['retry-after'],
          detail: (JSON.parse(body) as { error: { detail: string } }).error.detail,
        });
        socket.terminate();
      });
    });
    socket.once('open', () => resolve({ status: 101, socket }));
    socket.once('error', () => undefined);
  });
}

/** Reads a tRPC subscription's stream until it names `code` (or ends). */
async function subscriptionText(url: string, token: string, code: string): Promise<string> {
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
  });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  let text = '';
  while (!text.includes(code)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  await reader.cancel();
  return text;
}

describe('live feeds per credential', () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deploy(sqlite!, { maxFeeds: 2 });
  });
  afterAll(async () => {
    await d?.close();
  });

  it('refuses a feed past the cap with 429 and Retry-After, on every feed surface, and admits one again once a feed closes', async () => {
    const feed = `${d.url.replace('http', 'ws')}${d.ws}/feed?after=latest`;
    const first = await open(feed, d.tokens.member);
    const second = await open(feed, d.tokens.member);
    expect([first.status, second.status]).toEqual([101, 101]);

    const refused = await open(feed, d.tokens.member);
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(refused.detail).toContain('already holds 2 feeds open');
    const trpc = `${d.url}/trpc/runs.feed?input=${encodeURIComponent(
      JSON.stringify({ workspace_id: d.workspaceId, after: 'latest' }),
    )}`;
    expect(await subscriptionText(trpc, d.tokens.member, 'rate_limited')).toContain(
      '"code":"rate_limited"',
    );

    // Another credential has feeds of its own to open; the executor's cable counts for it alone.
    const cable = `${d.url.replace('http', 'ws')}/executor_api/v1/cable?after=latest`;
    const agentFeed = await open(feed, d.tokens.agent);
    const executorCable = await open(cable, d.tokens.executor);
    expect([agentFeed.status, executorCable.status]).toEqual([101, 101]);

    const closed = new Promise((resolve) => first.socket!.once('close', resolve));
    first.socket!.close();
    await closed;
    // The server forgets the socket on its own close event: give it the moment that takes.
    let again = await open(feed, d.tokens.member);
    for (let i = 0; i < 20 && again.status !== 101; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      again = await open(feed, d.tokens.member);
    }
    expect(again.status).toBe(101);
    for (const opened of [second, agentFeed, executorCable, again]) opened.socket?.close();
  });
});

describe('a feed whose client stopped answering', () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deploy(sqlite!, { maxFeeds: 1, timeouts: { feedPingMs: 200 } });
  });
  afterAll(async () => {
    await d?.close();
  });

  it('is ended after a ping it left unanswered, giving its place under the cap back; one that answers stays', async () => {
    const feed = `${d.url.replace('http', 'ws')}${d.ws}/feed?after=latest`;
    const silent = await open(feed, d.tokens.member, false);
    expect(silent.status).toBe(101);
    const ended = await new Promise<number>((resolve) => silent.socket!.once('close', resolve));
    // Terminated, with no close frame: 1006 on the client's side.
    expect(ended).toBe(1006);
    let again = await open(feed, d.tokens.member);
    for (let i = 0; i < 20 && again.status !== 101; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      again = await open(feed, d.tokens.member);
    }
    expect(again.status).toBe(101);
    // A client that pongs (as ws and browsers do on their own) outlives several pings.
    let closed = false;
    again.socket!.once('close', () => {
      closed = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(closed).toBe(false);
    again.socket!.close();
  });
});
