/*
 * Prints the floor under issue 25's MCP gateway target beside the gateway itself, in one run: the
 * same granted `read_text_file` on the real filesystem server, sent as raw JSON-RPC lines over
 * stdio by this process to
 * - the server directly;
 * - a relay process that forwards each line to the server it started and the answer back (the
 *   gateway's two extra stdio hops, with no work of its own: floor/relay.ts);
 * - the relay asking a record server over loopback HTTP before each call (the kernel's hop), first
 *   answering at once, then only after writing 13 pages and fsyncing them (the COMMIT a grant
 *   needs at full durability: floor/record-server.ts);
 * - `airlock gateway mcp --stdio` in front of the same server, against a kernel on SQLite in a
 *   process of its own whose rule grants the call.
 * The relay and the gateway run as a desktop client starts a gateway (node with tsx, a process of
 * their own); every variant first makes WARMUP calls. The timed calls go in ROUNDS rounds, the
 * variants' order rotating each round so a machine that drifts moves them alike, back to back and
 * then with 20 ms (untimed) between calls, where a client's model takes its turn. Each line is a
 * variant's median and p95 over all rounds and what it adds to the direct call's median.
 * Run: pnpm --filter @airlock/tests bench:mcp-floor   (CALLS=200 per variant and pacing, ROUNDS=4,
 * WARMUP=1000; PROFILE=DIR writes V8 CPU profiles to DIR: the kernel's over the timed calls, the
 * gateway's over its whole life; profiling slows both, so its figures are not the bench's;
 * GATEWAY_BASELINE=FILE adds another build's gateway, FILE its packages/mcp/src/cli.ts in a checkout
 * with its own node_modules, to the same rounds. A gateway's CPU per call still falls after a
 * thousand calls as V8 optimizes it, so compare builds with the same WARMUP, a few thousand.
 * The variants warm up in turns, so that none sits idle between its warm-up and its rounds)
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  filesystemFolder,
  gatewaySession,
  grantReads,
  READ,
  relaySession,
} from './floor/gateway-fixture.js';
import { LineSession } from './floor/line-session.js';
import { startRecordServer } from './floor/record.js';
import { forkKernel } from './kernel-process.js';

const CALLS = Number(process.env.CALLS ?? 200);
const ROUNDS = Number(process.env.ROUNDS ?? 4);
const WARMUP = Number(process.env.WARMUP ?? 1000);
const GAP_MS = 20;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A process's CPU time so far (user + system), in ms, from /proc (Linux's 100 ticks a second). */
function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

interface Variant {
  label: string;
  session: LineSession;
  tool: string;
  /** The process that stands for the kernel in this variant, if any. */
  decider: number | undefined;
  back: number[];
  paced: number[];
  /** CPU ms the front process (the server, relay or gateway) and the decider spent on timed calls. */
  cpu: { front: number; decider: number };
}

function median(samples: number[], q = 0.5): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

const { dir, server } = filesystemFolder('airlock-bench-mcp-floor-');
const input = READ.input;
const kernel = await forkKernel({ inbox: false });
const instant = await startRecordServer();
const durable = await startRecordServer({ file: join(dir, 'record.wal') });
const variants: Variant[] = [];
const add = (
  label: string,
  session: LineSession,
  options: { tool?: string; decider?: number | undefined } = {},
) =>
  variants.push({
    label,
    session,
    tool: options.tool ?? READ.tool,
    decider: options.decider,
    back: [],
    paced: [],
    cpu: { front: 0, decider: 0 },
  });
try {
  await grantReads(kernel);
  add('direct', new LineSession(server[0]!, server.slice(1)));
  add('relay (hops only)', relaySession(server));
  add('relay + record, no fsync', relaySession(server, instant), { decider: instant.pid });
  add('relay + record, fsync', relaySession(server, durable), { decider: durable.pid });
  const nodeArgs = process.env.PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROFILE}`]
    : [];
  add('Airlock gateway, stdio', gatewaySession(kernel, server, { nodeArgs }), {
    tool: READ.gatewayTool,
    decider: kernel.pid,
  });
  if (process.env.GATEWAY_BASELINE) {
    // Another build's gateway, in the same rounds: a change's cost read against the machine's drift.
    add(
      'gateway, baseline build',
      gatewaySession(kernel, server, { nodeArgs, cli: process.env.GATEWAY_BASELINE }),
      { tool: READ.gatewayTool, decider: kernel.pid },
    );
  }
  for (const variant of variants) await variant.session.start();
  // Warmed in turns, not one after the other: a gateway left idle while the others warm up then
  // spent 0.3 to 0.8 ms more CPU per call for thousands of calls (two gateways of one build).
  for (let i = 0; i < WARMUP; i += 1) {
    for (const variant of variants) await variant.session.call(variant.tool, input);
  }
  if (process.env.PROFILE) await kernel.startProfile();
  const perRound = Math.ceil(CALLS / ROUNDS);
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = variants.map((_, i) => variants[(i + round) % variants.length]!);
    for (const variant of order) {
      const front = cpuMs(variant.session.pid);
      const decider = cpuMs(variant.decider);
      for (let i = 0; i < perRound; i += 1) {
        const started = performance.now();
        await variant.session.call(variant.tool, input);
        variant.back.push(performance.now() - started);
      }
      for (let i = 0; i < perRound; i += 1) {
        await sleep(GAP_MS);
        const started = performance.now();
        await variant.session.call(variant.tool, input);
        variant.paced.push(performance.now() - started);
      }
      variant.cpu.front += cpuMs(variant.session.pid) - front;
      variant.cpu.decider += cpuMs(variant.decider) - decider;
    }
  }
  if (process.env.PROFILE) await kernel.stopProfile(`${process.env.PROFILE}/kernel.cpuprofile`);
  const direct = variants[0]!;
  console.log(
    `granted read_text_file as raw JSON-RPC lines, node ${process.version}, ${perRound * ROUNDS} calls per variant and pacing in ${ROUNDS} rotating rounds, ${WARMUP} calls of warm-up`,
  );
  console.log(
    `${'variant'.padEnd(26)} ${'back to back'.padStart(14)} ${'p95'.padStart(6)} ${'added'.padStart(7)}   ${`${GAP_MS} ms between`.padStart(14)} ${'p95'.padStart(6)} ${'added'.padStart(7)}   CPU per call: front, decider`,
  );
  for (const variant of variants) {
    const cells = (own: number[], base: number[]) => [
      `${median(own).toFixed(2)} ms`.padStart(14),
      median(own, 0.95).toFixed(1).padStart(6),
      (median(own) - median(base)).toFixed(2).padStart(7),
    ];
    console.log(
      [
        variant.label.padEnd(26),
        ...cells(variant.back, direct.back),
        '  ',
        ...cells(variant.paced, direct.paced),
        '  ',
        `${(variant.cpu.front / (2 * variant.back.length)).toFixed(2)} ms`.padStart(9),
        Number.isNaN(variant.cpu.decider)
          ? '-'
          : `${(variant.cpu.decider / (2 * variant.back.length)).toFixed(2)} ms`,
      ].join(' '),
    );
  }
} finally {
  await Promise.all(variants.map((variant) => variant.session.close()));
  instant.close();
  durable.close();
  await kernel.close();
  rmSync(dir, { recursive: true, force: true });
}
