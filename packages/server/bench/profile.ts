/**
 * Profiles `airlock serve` on SQLite under the park-then-approve load (16
 * concurrent clients, as `bench:server`) with V8's CPU profiler, and prints
 * where its CPU goes per round trip: by kind of work, and the functions with
 * the most self time. Idle time and the process's start and shutdown are left
 * out. The profiler itself slows the process down by about a fifth, so read
 * the shares, not the absolute figures. Native time (SQLite, syscalls) shows
 * in the JavaScript function that called it.
 *
 *   pnpm --filter @airlock/server bench:profile [-- --seconds 8 --top 40 --cli other/dist/cli.js --postgres --concurrency 16 --durability relaxed --subscribers 1]
 *
 * `--subscribers N` holds N lifecycle-feed sockets of the whole workspace open
 * during the load (each receives every event, as an open web inbox does).
 *
 * `--postgres` profiles the kernel on a fresh PostgreSQL database beside the one
 * AIRLOCK_BENCH_DATABASE_URL or AIRLOCK_TEST_DATABASE_URL names (its SQL kinds then
 * stay empty: the `pg` driver's time shows on its own line, its sockets under Node).
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { keepBusy, parkThenApprove } from './round-trip.js';
import { freshDatabase, processCpuMs, startServer } from './server-process.js';
import { subscribersOf } from './subscribers.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    seconds: { type: 'string', default: '8' },
    top: { type: 'string', default: '40' },
    cli: { type: 'string' },
    postgres: { type: 'boolean', default: false },
    concurrency: { type: 'string', default: '16' },
    durability: { type: 'string' },
    subscribers: { type: 'string', default: '0' },
  },
});

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a script lives, shortened: a package name or a path under packages/. */
function origin(url: string): string {
  if (!url) return '(native)';
  const modules = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1]!;
  const own = /packages\/([^/]+)\/(?:dist|src)\/(.*)$/.exec(url);
  if (own) return `${own[1]}/${own[2]}`;
  if (url.startsWith('node:')) return url;
  return url.slice(-60);
}

/** A frame anywhere in a sample's stack that marks the process starting or stopping. */
const START_OR_STOP =
  /node:internal\/modules|startAirlock|beforeClose|migrateToLatest|buildOpenApiDocument|\bclose\b/;

/** The server's feed modules (hub, frames, sockets), built or from source. */
const FEED_MODULE = /packages\/server\/[^/]+\/feed\//;

/** The kind of work of a sample, from the frame that used the time (first match wins). */
const KINDS: [string, (frame: ProfileNode['callFrame']) => boolean][] = [
  [
    'SQLite: the prepared statements (run from `runPrepared`)',
    (f) => f.functionName === 'runPrepared',
  ],
  [
    "SQLite: BEGIN, COMMIT and other queries through Kysely's driver",
    (f) => f.functionName === 'executeQuery' && f.url.includes('kysely'),
  ],
  [
    'SQLite: SAVEPOINT and RELEASE',
    (f) => f.functionName === 'exec' && f.url.includes('better-sqlite3'),
  ],
  ['garbage collection', (f) => f.functionName === '(garbage collector)'],
  ['socket writes (writev)', (f) => /^(writev|writeUtf8String|writeBuffer)$/.test(f.functionName)],
  ['zod (input validation)', (f) => f.url.includes('/zod/')],
  ['the pg driver (JavaScript)', (f) => /\/(pg|pg-protocol|pg-pool)\//.test(f.url)],
  ['Kysely (JavaScript)', (f) => f.url.includes('/kysely/')],
  ['@airlock/core', (f) => f.url.includes('packages/core/')],
  [
    'the kernel and REST (JavaScript of @airlock/server)',
    (f) => f.url.includes('packages/server/'),
  ],
  ['Node: HTTP, streams, crypto, timers', (f) => f.url.startsWith('node:')],
  ['other (microtasks, JSON, native helpers)', () => true],
];

async function main() {
  const profileDir = mkdtempSync(join(tmpdir(), 'airlock-profile-'));
  process.env.AIRLOCK_BENCH_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${profileDir}`;
  const pgUrl = process.env.AIRLOCK_BENCH_DATABASE_URL || process.env.AIRLOCK_TEST_DATABASE_URL;
  if (values.postgres && !pgUrl) throw new Error('--postgres needs AIRLOCK_TEST_DATABASE_URL');
  const databaseUrl = values.postgres ? await freshDatabase(pgUrl!) : null;
  const server = await startServer(databaseUrl, {
    ...(values.cli ? { cli: values.cli } : {}),
    ...(values.durability ? { args: ['--durability', values.durability] } : {}),
  });
  let trips = 0;
  let processCpu = 0;
  const subscribers = await subscribersOf(server, {
    kind: 'all',
    count: Number(values.subscribers),
  });
  try {
    const cpuBefore = processCpuMs(server.child.pid);
    trips = await keepBusy(Number(values.concurrency), Number(values.seconds) * 1000, () =>
      parkThenApprove(server),
    );
    processCpu = processCpuMs(server.child.pid) - cpuBefore;
  } finally {
    await subscribers?.close();
    await server.cleanup();
  }
  const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no profile in ${profileDir}`);
  const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  /** Whether a sample's frame or any frame under which it ran passes `test` (memoized per node). */
  const anyFrameUp = (test: (frame: ProfileNode['callFrame']) => boolean) => {
    const known = new Map<number, boolean>();
    const up = (id: number): boolean => {
      let answer = known.get(id);
      if (answer === undefined) {
        const parentId = parent.get(id);
        answer = test(byId.get(id)!.callFrame) || (parentId !== undefined && up(parentId));
        known.set(id, answer);
      }
      return answer;
    };
    return up;
  };
  const outsideLoad = anyFrameUp((frame) =>
    START_OR_STOP.test(`${frame.functionName} ${frame.url}`),
  );
  // The lifecycle feed's whole cost: every sample with a frame of the server's feed modules in its
  // stack (the hub's dispatch, the frames, the socket writes under them).
  const underFeed = anyFrameUp((frame) => FEED_MODULE.test(frame.url));
  let feed = 0;
  const byKind = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)' || outsideLoad(id)) return;
    total += us;
    if (underFeed(id)) feed += us;
    const kind = KINDS.find(([, test]) => test(frame))![0];
    byKind.set(kind, (byKind.get(kind) ?? 0) + us);
    const name = `${frame.functionName || '(anonymous)'} ${origin(frame.url)}:${frame.lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  });
  const perTrip = (us: number) => (us / trips).toFixed(1);
  console.log(
    `${trips} round trips with ${values.subscribers} feed subscribers of every event; CPU under load, profiled: ${perTrip(total)} µs per round trip (idle, start and shutdown left out); the process's CPU over the load from /proc (every thread, the profiler's own cost included): ${((processCpu * 1000) / Math.max(1, trips)).toFixed(1)} µs per round trip`,
  );
  console.log(
    `the lifecycle feed (samples under the server's feed/ modules): ${perTrip(feed)} µs per round trip, ${((100 * feed) / Math.max(1, total)).toFixed(1)} % of the profiled CPU`,
  );
  const print = (title: string, map: Map<string, number>, top: number) => {
    console.log(`\n| µs per round trip | share | ${title} |\n| ---: | ---: | --- |`);
    for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      console.log(`| ${perTrip(us)} | ${((100 * us) / total).toFixed(1)} % | ${name} |`);
    }
  };
  print('kind of work', byKind, KINDS.length);
  print('function (self time)', byFunction, Number(values.top));
  console.log(`\nprofile: ${join(profileDir, file)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
