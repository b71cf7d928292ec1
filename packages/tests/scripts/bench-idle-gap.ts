/*
 * What a pause before a request costs on this machine: the same granted check (an adapter
 * session's `check`, the kernel in a process of its own, SQLite) and the same floor (one POST to
 * the fsyncing record server of floor/record-server.ts, also a process of its own) timed back to
 * back, after 3 ms and after 20 ms in which the bench's process sleeps, and after 3 ms in which it
 * computes (as a framework's own work between two calls does). Every variant takes its turn in
 * each round, so the machine's load of the moment falls on all alike.
 *
 * The benches of issue 25 and 30 time a call after such pauses (a client's model taking its turn,
 * the framework's own steps between two checks); this bench says how much of their figure is the
 * pause itself, for Airlock and for the floor.
 *
 * Run: pnpm --filter @airlock/tests bench:idle-gap   (ROUNDS=150 by default, WARMUP=3000 granted
 * checks and reports first; DURABILITY=relaxed for a kernel that syncs at checkpoints)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAiSdkAirlock } from '@airlock/sdk/ai';
import { declareProfile } from '../src/frameworks/support.js';
import { recordAsker, startRecordServer } from './floor/record.js';
import { forkKernel } from './kernel-process.js';

const ROUNDS = Number(process.env.ROUNDS ?? 150);
const WARMUP = Number(process.env.WARMUP ?? 3000);
const DURABILITY = process.env.DURABILITY === 'relaxed' ? 'relaxed' : 'full';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const compute = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};
const PAUSES: [string, () => unknown][] = [
  ['back to back', () => {}],
  ['3 ms computing', () => compute(3)],
  ['3 ms asleep', () => sleep(3)],
  ['20 ms asleep', () => sleep(20)],
];

const signed = (ms: number) => `${ms >= 0 ? '+' : '-'}${Math.abs(ms).toFixed(2)}`;
const median = (list: number[]) => [...list].sort((a, b) => a - b)[list.length >> 1] ?? Number.NaN;

const forked = await forkKernel({ durability: DURABILITY, inbox: false });
const recordDir = mkdtempSync(join(tmpdir(), 'airlock-bench-gap-'));
const record = await startRecordServer({ file: join(recordDir, 'record.wal') });
try {
  const connection = { url: forked.url, token: forked.workspace.tokens.agent };
  await declareProfile(connection);
  const { session } = createAiSdkAirlock({ ...connection, sessionId: 'gap', awaitReports: true });
  const askRecord = recordAsker(record.url);
  let n = 0;
  const check = async (): Promise<number> => {
    n += 1;
    const call = { name: 'lookup', input: { q: n }, callId: `c${n}` };
    const started = performance.now();
    const verdict = await session.check(call);
    const took = performance.now() - started;
    if (verdict.verdict !== 'allow') throw new Error(`not granted: ${verdict.reason}`);
    // The report, untimed: the next check finds the kernel as a finished call leaves it.
    await session.ran(call, { ok: true, output: { q: n } });
    return took;
  };
  const floor = async (): Promise<number> => {
    n += 1;
    const started = performance.now();
    await askRecord({ tool: 'lookup', id: n });
    return performance.now() - started;
  };
  for (let i = 0; i < WARMUP; i += 1) {
    await check();
    await floor();
  }
  const times = new Map<string, { airlock: number[]; floor: number[] }>();
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [name, pause] of PAUSES) {
      const seen = times.get(name) ?? { airlock: [], floor: [] };
      await pause();
      seen.airlock.push(await check());
      await pause();
      seen.floor.push(await floor());
      times.set(name, seen);
    }
  }
  console.log(
    `granted check (kernel in its own process, durability ${DURABILITY}) and the fsynced record floor, p50 of ${ROUNDS} per pause, node ${process.version}`,
  );
  const base = times.get('back to back')!;
  for (const [name] of PAUSES) {
    const seen = times.get(name)!;
    const airlock = median(seen.airlock);
    const floorMs = median(seen.floor);
    console.log(
      `${name.padEnd(16)} airlock ${airlock.toFixed(2)} ms (${signed(airlock - median(base.airlock))})   floor ${floorMs.toFixed(2)} ms (${signed(floorMs - median(base.floor))})`,
    );
  }
} finally {
  record.close();
  rmSync(recordDir, { recursive: true, force: true });
  await forked.close();
}
