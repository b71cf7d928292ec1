import { createClient, type FeedEvent, type WebSocketConstructor } from '@airlock/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { eventually, scriptedRun, startTestKernel, type TestKernel } from '../support/kernel.js';

/** A `ws` WebSocket that records every instance, so a test can cut a connection. */
function recordingWebSocket(): { Socket: WebSocketConstructor; sockets: WebSocket[] } {
  const sockets: WebSocket[] = [];
  class Recording extends WebSocket {
    constructor(url: string) {
      super(url);
      sockets.push(this);
    }
  }
  return { Socket: Recording as unknown as WebSocketConstructor, sockets };
}

describe('a feed that reconnects while its credential is rate limited', () => {
  let kernel: TestKernel;
  beforeAll(async () => {
    // One request a second: a spent bucket stays spent for the SDK's first reconnect (100 ms).
    kernel = await startTestKernel({ rateLimit: { perSecond: 1, burst: 20 } });
  });
  afterAll(async () => {
    await kernel?.close();
  });

  it('waits and reconnects (rate_limited is passing), resuming without gaps', async () => {
    const { Socket, sockets } = recordingWebSocket();
    const token = kernel.workspace.tokens.member;
    const client = createClient({ url: kernel.url, token, WebSocket: Socket });
    const runs = client.workspace(kernel.workspace.id).runs;
    const created = await runs.create(scriptedRun('ask', [{ final: 'done' }]));
    const statuses: string[] = [];
    const feed = runs.run(created.id).feed({ onStatus: (status) => statuses.push(status) });
    const seen: FeedEvent[] = [];
    let failure: unknown = null;
    const reading = (async () => {
      try {
        for await (const event of feed) seen.push(event);
      } catch (error) {
        failure = error;
      }
    })();
    await eventually(() => statuses.includes('open'));
    // Spend the credential's bucket, then cut the socket: the reconnect's check meets 429.
    const list = `${kernel.url}/api/v1/workspaces/${kernel.workspace.id}/runs`;
    for (let i = 0; i < 40; i++) {
      const answer = await fetch(list, { headers: { authorization: `Bearer ${token}` } });
      if (answer.status === 429) break;
    }
    sockets[0]!.terminate();
    await eventually(() => statuses.filter((status) => status === 'open').length >= 2, {
      timeoutMs: 15_000,
      what: 'the feed open again',
    });
    expect(failure).toBeNull();
    feed.close();
    await reading;
    // The bucket may still be empty: the log is read once it lets a request through.
    const events = await eventually(
      () =>
        runs
          .run(created.id)
          .events({ limit: 1000 })
          .catch(() => null),
      { timeoutMs: 10_000, what: 'the run events' },
    );
    expect(seen.map((event) => event.seq)).toEqual(events.map((event) => event.seq));
  }, 30_000);
});
