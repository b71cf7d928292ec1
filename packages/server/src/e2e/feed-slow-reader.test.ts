import type { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { MAX_BUFFERED } from '../feed/frame-writer.js';
import {
  type Answer,
  claimAndCommit,
  type Deployment,
  deploy,
  runOfCalls,
  waitFor,
} from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

/** Calls in one round, each committing a large result: the backlog is several times MAX_BUFFERED. */
const CALLS = 24;
const RESULT = 900_000;

/** Seeds a workspace's log with one completed run whose events weigh several times MAX_BUFFERED. */
async function longBacklog(d: Deployment): Promise<number> {
  const runId = await runOfCalls(d, {
    mode: 'bypass',
    tool: 'fetch',
    count: CALLS,
    state: 'runnable',
  });
  for (let n = 1; n <= CALLS; n += 1) {
    const committed = await claimAndCommit(d, runId, `t${n}`, {
      outcome: 'succeeded',
      result: String(n % 10).repeat(RESULT),
    });
    expect(committed.status).toBe(200);
  }
  await waitFor(
    async () => (await d.member.get(`${d.ws}/runs/${runId}`)).body.state === 'completed',
    { timeoutMs: 60_000 },
  );
  let head = 0;
  for (let after: number | null = 0; after !== null; ) {
    const page: Answer = await d.member.get(
      `${d.ws}/runs/${runId}/events?limit=1000&after=${after}`,
    );
    for (const event of page.body.events) head = Math.max(head, event.seq);
    after = page.body.next_after;
  }
  return head;
}

/**
 * A raw `ws` feed client from the start of the log that reads nothing until
 * told to; `autoPong: false` makes one that reads but answers no ping.
 */
function pausedReader(d: Deployment, options: { autoPong?: boolean } = {}) {
  const socket = new WebSocket(`${d.url.replace('http', 'ws')}${d.ws}/feed?after=0`, {
    headers: { authorization: `Bearer ${d.tokens.member}` },
    autoPong: options.autoPong ?? true,
  });
  const seqs: number[] = [];
  let bytes = 0;
  socket.on('message', (data: Buffer) => {
    bytes += data.length;
    const message = JSON.parse(data.toString());
    if (message.type === 'event') seqs.push(message.event.seq);
  });
  let closeCode: number | null = null;
  const closed = new Promise<number>((resolve) =>
    socket.on('close', (code) => {
      closeCode = code;
      resolve(code);
    }),
  );
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', () => {
      // Reads nothing more: what the kernel writes waits in its buffers.
      socket.pause();
      resolve();
    });
    socket.once('error', reject);
  });
  return { socket, seqs, closed, opened, received: () => bytes, closeCode: () => closeCode };
}

describe.skipIf(sqlite!.skip !== null)('a feed socket catching up on a long backlog', () => {
  let d: Deployment;
  let head: number;

  beforeAll(async () => {
    d = await deploy(sqlite!, { timeouts: { feedPingMs: 60_000 } });
    head = await longBacklog(d);
  }, 180_000);
  afterAll(async () => {
    await d?.close();
  });

  it('is paced by a slow reader, which receives every event rather than close 1013', async () => {
    const reader = pausedReader(d);
    await reader.opened;
    // Long enough for a kernel that does not wait for the socket to write far past MAX_BUFFERED.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    reader.socket.resume();
    await Promise.race([
      reader.closed,
      waitFor(async () => reader.seqs.at(-1) === head, { timeoutMs: 60_000 }),
    ]);
    expect(reader.closeCode()).toBeNull();
    expect(reader.received()).toBeGreaterThan(2 * MAX_BUFFERED);
    expect(reader.seqs).toEqual(Array.from({ length: head }, (_, i) => i + 1));
    reader.socket.close();
    await reader.closed;
    await waitFor(async () => d.airlock.hub.stats().live + d.airlock.hub.stats().catchingUp === 0);
  }, 90_000);
});

describe.skipIf(sqlite!.skip !== null)('a feed socket whose reader stopped reading', () => {
  let d: Deployment;

  beforeAll(async () => {
    d = await deploy(sqlite!, { timeouts: { feedPingMs: 200 } });
    await longBacklog(d);
  }, 180_000);
  afterAll(async () => {
    await d?.close();
  });

  it('is still dropped, and its catch-up ends with it', async () => {
    const reader = pausedReader(d);
    await reader.opened;
    // Subscribed before the upgrade's answer went out.
    expect(d.airlock.hub.stats().catchingUp).toBe(1);
    // It answers no ping: the kernel ends the socket, and the subscription waiting on it goes too.
    await waitFor(async () => d.airlock.hub.stats().live + d.airlock.hub.stats().catchingUp === 0, {
      timeoutMs: 20_000,
    });
    reader.socket.terminate();
  }, 60_000);
});

/**
 * Seeds a workspace's log with runs whose calls carry large inputs: many
 * events of about 14 KB, so a catch-up reads many pages of 1 MiB.
 */
async function manyMediumEvents(d: Deployment): Promise<number> {
  const pad = 'x'.repeat(14_000);
  for (let run = 0; run < 24; run += 1) {
    const calls = Array.from({ length: 64 }, (_, n) => ({ name: 'bash', input: { n, pad } }));
    const created = await d.agent.post(`${d.ws}/runs`, {
      approval_mode: 'ask',
      input: 'x',
      provider: { kind: 'scripted', rounds: [{ tool_calls: calls }, { final: 'done' }] },
    });
    expect(created.status).toBe(201);
  }
  const ready = await new Promise<number>((resolve, reject) => {
    const socket = new WebSocket(`${d.url.replace('http', 'ws')}${d.ws}/feed?after=latest`, {
      headers: { authorization: `Bearer ${d.tokens.member}` },
    });
    socket.once('message', (data: Buffer) => {
      resolve(JSON.parse(data.toString()).after);
      socket.close();
    });
    socket.once('error', reject);
  });
  return ready;
}

describe.skipIf(sqlite!.skip !== null)('a feed socket catching up that answers no ping', () => {
  let d: Deployment;
  let head: number;

  beforeAll(async () => {
    // A ping every 3 s: the catch-up (read a chunk per 20 ms) still spans several,
    // and a stall of the whole process (kernel and reader alike) on a loaded machine does not
    // pass for a reader that stopped: at 1 s, a fresh-clone run beside other jobs lost the
    // socket after 1,207 of 3,160 events.
    d = await deploy(sqlite!, { timeouts: { feedPingMs: 3000 } });
    head = await manyMediumEvents(d);
  }, 180_000);
  afterAll(async () => {
    await d?.close();
  });

  it('is kept while it reads what it is sent, as one that answers pings is', async () => {
    const reader = pausedReader(d, { autoPong: false });
    await reader.opened;
    // It reads one chunk of the socket every 20 ms: its catch-up (about 8 s) spans several pings.
    const tcp = (reader.socket as unknown as { _socket: Duplex })._socket;
    tcp.on('data', () => {
      tcp.pause();
      setTimeout(() => tcp.resume(), 20);
    });
    reader.socket.resume();
    await Promise.race([
      reader.closed,
      waitFor(async () => reader.seqs.at(-1) === head, { timeoutMs: 120_000 }),
    ]);
    expect(reader.seqs).toEqual(Array.from({ length: head }, (_, i) => i + 1));
    // Live now, with nothing to send: a socket that answers no ping is ended as before.
    expect(await reader.closed).toBe(1006);
  }, 150_000);
});
