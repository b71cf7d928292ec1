/*
 * Does a kernel's memory stay flat under the traffic of weeks? Forks a kernel (SQLite, full
 * durability, as `airlock serve` runs) and sends it PAIRS granted `PreToolUse` and `PostToolUse`
 * events of Claude Code's HTTP hook, 50 calls per session (so a new session, a new run, every
 * 50), while a tRPC feed subscriber (server-sent events) follows the workspace and drops its
 * connection mid-stream every 500 pairs, then connects again: the paths where a kernel kept
 * something per request, per wait or per dropped connection (docs/durability.md, "Memory over a long life"). Prints the
 * kernel's resident set and V8 heap after a full garbage collection every tenth of the run, and
 * the heap's growth from the first tenth to the end.
 * Run: pnpm --filter @airlock/tests soak:kernel   (PAIRS=20000 by default)
 */
import { request } from 'node:http';
import { declareProfile } from '../src/frameworks/support.js';
import { claudeToolEvents, postClaudeEvent } from './claude-hook-events.js';
import { forkKernel } from './kernel-process.js';

const PAIRS = Number(process.env.PAIRS ?? 20_000);
const CALLS_PER_SESSION = 50;
const RECONNECT_EVERY = 500;

const kernel = await forkKernel({ durability: 'full', inbox: false });
const connection = { url: kernel.url, token: kernel.workspace.tokens.agent };
await declareProfile(connection, {
  approval_mode: 'rules',
  approval_rules: [{ tool: 'Bash', verdict: 'allow' }],
});

/**
 * Follows the workspace's feed over tRPC's server-sent events from `after`, as a client resuming
 * from its last event id does; answers what it read and a function that drops the connection.
 */
function followFeed(after: number): {
  received: () => number;
  lastSeq: () => number;
  drop: () => void;
} {
  let bytes = 0;
  let lastSeq = after;
  const input = encodeURIComponent(JSON.stringify({ workspace_id: kernel.workspace.id, after }));
  const req = request(`${kernel.url}/trpc/runs.feed?input=${input}`, {
    headers: {
      authorization: `Bearer ${kernel.workspace.tokens.member}`,
      accept: 'text/event-stream',
    },
  });
  req.on('response', (res) =>
    res.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      for (const [, id] of chunk.toString('utf8').matchAll(/^id: (\d+)$/gm)) {
        lastSeq = Math.max(lastSeq, Number(id));
      }
    }),
  );
  req.on('error', () => {});
  req.end();
  return { received: () => bytes, lastSeq: () => lastSeq, drop: () => req.destroy() };
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
console.log(
  `soak: ${PAIRS} granted event pairs, ${CALLS_PER_SESSION} per session, a feed dropped and followed again every ${RECONNECT_EVERY}`,
);
let feed = followFeed(0);
let feedBytes = 0;
let heapAtFirstTenth = 0;
const started = performance.now();
try {
  for (let i = 1; i <= PAIRS; i += 1) {
    const [pre, post] = claudeToolEvents(`soak-${Math.floor(i / CALLS_PER_SESSION)}`, i);
    await postClaudeEvent(kernel.url, connection.token, pre);
    await postClaudeEvent(kernel.url, connection.token, post);
    if (i % RECONNECT_EVERY === 0) {
      feedBytes += feed.received();
      feed.drop();
      feed = followFeed(feed.lastSeq());
    }
    if (i % Math.max(1, Math.floor(PAIRS / 10)) === 0) {
      const { rss, heapUsed } = await kernel.memory();
      if (heapAtFirstTenth === 0) heapAtFirstTenth = heapUsed;
      console.log(
        `${String(i).padStart(7)} pairs  ${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s  ` +
          `rss ${mb(rss).padStart(6)} MB  heap ${mb(heapUsed).padStart(6)} MB  feed read ${mb(feedBytes + feed.received())} MB`,
      );
    }
  }
  const { heapUsed } = await kernel.memory();
  console.log(
    `heap after the first tenth ${mb(heapAtFirstTenth)} MB, at the end ${mb(heapUsed)} MB: ` +
      `${(heapUsed / heapAtFirstTenth).toFixed(2)}x`,
  );
} finally {
  feed.drop();
  await kernel.close();
}
