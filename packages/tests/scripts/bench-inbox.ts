/*
 * What an open inbox costs and how fast it shows a park, in headless Chromium against a kernel on
 * loopback (SQLite, in a process of its own: inbox-kernel.ts), beside a no-inbox baseline measured
 * in the same run.
 *
 * 1. Fills the workspace with WAITING parked calls (default 1000; runs of 50 calls), no page open.
 * 2. Baseline: PARKS parks (default 200) one after another with no page open: parks/s.
 * 3. Opens the inbox (signed in through sessionStorage) LOADS + 1 times (default 5), each but the
 *    last in a fresh browser context, and times each load on the page's clock: the navigation's
 *    start to the first card painted (scripts/inbox-load.ts); and how many waiting calls it holds.
 * 4. Park-to-pixel: LATENCY parks (default 100), paced 50 ms apart; for each, the kernel's
 *    `task.parked` time to the animation frame after its card entered the page (a card that never
 *    appears is counted as missing).
 * 5. The same PARKS parks with the inbox open: parks/s, and the ratio to the baseline; the
 *    kernel process's CPU time per park in both (what the open inbox costs the kernel itself,
 *    whatever else shares the machine), the page's HTTP requests and Chromium's CPU per park.
 * 6. Scrolling: the list is scrolled for two seconds; the longest frame is reported.
 * 7. The kernel's CPU per park interleaved over ROUNDS rounds (default 3) of PARKS / 2 parks a
 *    side (inbox-kernel-cost.ts): beside the page blank, with one more feed subscriber and no
 *    page (what serving an open inbox's feed costs the kernel), beside a busy neighbour, and with
 *    the inbox open.
 *
 * Run: pnpm bench:inbox   (WAITING=10000 pnpm bench:inbox for the large backlog; STAGES=1 adds
 * where park-to-pixel goes: the feed's delivery, the page's work, and the row read beside them;
 * PROFILE=DIR writes a V8 CPU profile of the kernel during each parks/s phase; LOAD_PROFILE=FILE one
 * of the page's load)
 * Figures on a shared machine are under load: read the ratio, not the absolute times.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inboxDistDir } from '@airlock/inbox';
import { createClient } from '@airlock/sdk';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import { CHROMIUM, LAUNCH_ARGS, repoRoot } from '../src/support/browser.js';
import { scriptedRun } from '../src/support/kernel.js';
import { feedSubscriber, interleavedKernelCost } from './inbox-kernel-cost.js';
import { coldLoads, loadInbox, prepareInboxPage } from './inbox-load.js';
import { watchStages } from './inbox-stages.js';
import { forkKernel } from './kernel-process.js';

const WAITING = Number(process.env.WAITING ?? 1000);
const PARKS = Number(process.env.PARKS ?? 200);
const LATENCY = Number(process.env.LATENCY ?? 100);
/** Cold loads of the inbox (each in a fresh browser context) before the one the bench keeps. */
const LOADS = Number(process.env.LOADS ?? 4);
/** Rounds of the interleaved comparison of the kernel's CPU per park, inbox open against a blank page. */
const ROUNDS = Number(process.env.ROUNDS ?? 3);
/** With PROFILE=DIR, a V8 CPU profile of the kernel during each parks/s phase is written there. */
const PROFILE = process.env.PROFILE;

/**
 * The CPU time (user + system, ms) of a process's descendants and itself so far, from Linux's /proc
 * (clock ticks of 10 ms); null where there is no /proc.
 */
function treeCpuMs(root: number | undefined): number | null {
  if (root === undefined) return null;
  try {
    const parent = new Map<number, number>();
    const ticks = new Map<number, number>();
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        // The fields after the command's closing parenthesis: state, ppid, … utime (14), stime (15).
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        parent.set(Number(name), Number(fields[1]));
        ticks.set(Number(name), Number(fields[11]) + Number(fields[12]));
      } catch {
        // the process ended meanwhile
      }
    }
    let total = 0;
    for (const [pid, used] of ticks) {
      let at: number | undefined = pid;
      while (at !== undefined && at > 1 && at !== root) at = parent.get(at);
      if (at === root) total += used;
    }
    return total * 10;
  } catch {
    return null;
  }
}

function percentile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '—');
/** A change in per cent with its sign: `+12.1 %`, `-6.0 %`. */
const change = (after: number, before: number) => {
  const percent = (after / before - 1) * 100;
  return `${percent >= 0 ? '+' : ''}${fixed(percent)} %`;
};

await build({
  configFile: join(repoRoot, 'packages', 'inbox', 'vite.config.ts'),
  logLevel: 'warn',
});
console.log(`inbox page: ${inboxDistDir()}`);
const kernel = await forkKernel();
if (PROFILE) mkdirSync(PROFILE, { recursive: true });
const ws = createClient({ url: kernel.url, token: kernel.workspace.tokens.member }).workspace(
  kernel.workspace.id,
);
let serial = 0;
/** One run whose only call parks (mode ask), so it waits for a person. */
const park = () => {
  serial += 1;
  return ws.runs.create(
    scriptedRun('ask', [
      {
        tool_calls: [
          {
            name: 'write',
            input: { path: `src/file-${serial}.ts`, content: 'export const x = 1;\n' },
          },
        ],
      },
      { final: 'written' },
    ]),
  );
};

// The kernel's park times, by `run/task`, from the workspace feed.
const parkedAt = new Map<string, number>();
const stopWatching = await feedSubscriber(ws, (event) => {
  if (event.type === 'task.parked') {
    parkedAt.set(`${event.run_id}/${event.task_key}`, event.created_at);
  }
});

/** A parks/s phase: its rate, and the CPU the kernel and the browser spent per park. */
interface Phase {
  rate: number;
  kernelMs: number;
  browserMs: number | null;
}

/** The browser's CPU so far: every process this one started, less the kernel's. */
function browserCpuMs(): number | null {
  const all = treeCpuMs(process.pid);
  const kernelTree = treeCpuMs(kernel.pid);
  return all === null || kernelTree === null ? null : all - kernelTree;
}

async function parksPerSecond(count: number, name: string, browserOpen = false): Promise<Phase> {
  if (PROFILE) await kernel.startProfile();
  const kernelBefore = await kernel.cpuMs();
  const browserBefore = browserOpen ? browserCpuMs() : null;
  const started = performance.now();
  for (let i = 0; i < count; i += 1) await park();
  // Wait until each of them parked, so the figure covers the whole park.
  await waitParked();
  const rate = count / ((performance.now() - started) / 1000);
  const kernelMs = ((await kernel.cpuMs()) - kernelBefore) / count;
  const browserAfter = browserOpen ? browserCpuMs() : null;
  if (PROFILE) await kernel.stopProfile(join(PROFILE, `kernel-${name}.cpuprofile`));
  return {
    rate,
    kernelMs,
    browserMs:
      browserBefore === null || browserAfter === null
        ? null
        : (browserAfter - browserBefore) / count,
  };
}

async function waitParked(): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (parkedAt.size < serial) {
    if (Date.now() > deadline) throw new Error(`only ${parkedAt.size} of ${serial} calls parked`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

console.log(`filling ${WAITING} waiting calls (runs of up to 50 calls each)…`);
for (let left = WAITING; left > 0; left -= 50) {
  const calls = Math.min(50, left);
  await ws.runs.create(
    scriptedRun('ask', [
      {
        tool_calls: Array.from({ length: calls }, (_, i) => ({
          name: 'write',
          input: { path: `fill/${left}-${i}.ts`, content: 'export const x = 1;\n' },
        })),
      },
      { final: 'written' },
    ]),
  );
}
serial += WAITING;
await waitParked();

const baseline = await parksPerSecond(PARKS, 'without-inbox');
console.log(`parks/s without an inbox: ${fixed(baseline.rate)}`);

// The first page's read alone, from this process: what the kernel takes to answer it at this backlog.
const pageReads: number[] = [];
for (let i = 0; i < 5; i += 1) {
  const started = performance.now();
  await ws.decisions.page({ limit: 30, order: 'newest' });
  pageReads.push(performance.now() - started);
}

const waitingAtOpen = serial;
const browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
const session = {
  url: kernel.url,
  workspaceId: kernel.workspace.id,
  token: kernel.workspace.tokens.member,
};
// Cold loads first (each in a fresh context), then the page the rest of the bench uses.
const loads = await coldLoads(browser, session, LOADS);
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
await prepareInboxPage(page, session);
// With STAGES=1, where park-to-pixel goes, from Chromium's own network clock (DevTools protocol):
// the feed frame that brought each park, and the one-row read (`tasks.get`) it caused. Off by
// default: the browser's network tracking costs CPU the kernel shares on one machine.
const stages = process.env.STAGES === '1' ? await watchStages(page) : null;
// What the page receives and asks for while the kernel parks with it open.
let counting = false;
let requests = 0;
let feedFrames = 0;
let feedBytes = 0;
let readBytes = 0;
page.on('request', (request) => {
  if (!counting) return;
  requests += 1;
  void request.response().then(
    (response) => response?.body().then((body) => (readBytes += body.length)),
    () => {},
  );
});
page.on('websocket', (socket) =>
  socket.on('framereceived', (frame) => {
    if (!counting) return;
    feedFrames += 1;
    feedBytes += frame.payload.length;
  }),
);
// With LOAD_PROFILE=FILE a V8 CPU profile of this load is written there; LOAD_TRACE=FILE a trace.
const loadSplit = await loadInbox(browser, page, kernel.url, {
  profile: process.env.LOAD_PROFILE,
  trace: process.env.LOAD_TRACE,
});
loads.push(loadSplit);
await page.locator('.status[data-status="live"]').waitFor();
const cardsInPage = await page.locator('[data-decision]').count();
const title = await page.title();
const painted = loads.map((load) => load.painted);
const walls = loads.map((load) => load.wall);
console.log(
  `load ${fixed(loadSplit.painted, 0)} ms (page's clock), ${cardsInPage} cards, title ${title}`,
);
// With LOAD_DETAIL=1, each resource the page fetched: start, request, first byte, end (page's clock).
if (process.env.LOAD_DETAIL === '1') {
  console.log(
    await page.evaluate(
      `performance.getEntriesByType('resource').map((e) => [e.name.slice(e.name.indexOf('/', 8)).slice(0, 70), Math.round(e.startTime), Math.round(e.requestStart), Math.round(e.responseStart), Math.round(e.responseEnd)].join(' ')).join('\\n')`,
    ),
  );
}
// Park-to-pixel, paced.
const latencyKeys: string[] = [];
for (let i = 0; i < LATENCY; i += 1) {
  const run = await park();
  latencyKeys.push(`${run.id}/t1`);
  await new Promise((r) => setTimeout(r, 50));
}
await waitParked();
await new Promise((r) => setTimeout(r, 1000));
const pixels = new Map(
  await page.evaluate(() => [
    ...(globalThis as unknown as { __pixels: Map<string, number> }).__pixels,
  ]),
);
const latencies: number[] = [];
let missing = 0;
for (const key of latencyKeys) {
  const shown = pixels.get(key);
  const parked = parkedAt.get(key);
  if (shown === undefined || parked === undefined) missing += 1;
  else latencies.push(shown - parked);
}

const breakdown = stages?.breakdown(latencyKeys, parkedAt, pixels);
const stageLines = breakdown
  ? `
    kernel park -> feed frame in the page : p50 ${fixed(percentile(breakdown.frame, 0.5))} ms, p95 ${fixed(percentile(breakdown.frame, 0.95))} ms
    feed frame -> pixel (the page)       : p50 ${fixed(percentile(breakdown.paint, 0.5))} ms, p95 ${fixed(percentile(breakdown.paint, 0.95))} ms
    rows the page read as they came      : ${breakdown.read.length} of ${latencyKeys.length}${breakdown.read.length === 0 ? '' : `; feed frame -> row read p50 ${fixed(percentile(breakdown.send, 0.5))} ms, p95 ${fixed(percentile(breakdown.send, 0.95))} ms sent, round trip p50 ${fixed(percentile(breakdown.read, 0.5))} ms, p95 ${fixed(percentile(breakdown.read, 0.95))} ms`}`
  : '';

counting = true;
// The page's main thread while the kernel parks: Chromium's own counters (DevTools protocol).
const metricsSession = await page.context().newCDPSession(page);
await metricsSession.send('Performance.enable');
const mainThread = async () =>
  new Map(
    (await metricsSession.send('Performance.getMetrics')).metrics.map((metric) => [
      metric.name,
      metric.value,
    ]),
  );
const threadBefore = await mainThread();
const withInbox = await parksPerSecond(PARKS, 'with-inbox', true);
const requestsPerPark = requests / PARKS;
counting = false;
const threadAfter = await mainThread();
/** Milliseconds per park of one of Chromium's duration counters (kept in seconds). */
const perPark = (name: string) =>
  (((threadAfter.get(name) ?? 0) - (threadBefore.get(name) ?? 0)) * 1000) / PARKS;
console.log(`parks/s with the inbox open: ${fixed(withInbox.rate)}`);

// Scrolling: the longest frame while the list scrolls for two seconds.
// (A string, not a function: the bundler's helpers do not exist in the page.)
if (process.env.SCROLL_TRACE) await browser.startTracing(page, { path: process.env.SCROLL_TRACE });
const frames = (await page.evaluate(`new Promise((done) => {
  const gaps = [];
  const started = performance.now();
  let last = started;
  function step(now) {
    gaps.push(now - last);
    last = now;
    window.scrollBy(0, 400);
    if (now - started < 2000) requestAnimationFrame(step);
    else done(gaps.slice(1));
  }
  requestAnimationFrame(step);
})`)) as number[];
if (process.env.SCROLL_TRACE) await browser.stopTracing();

// What an open inbox costs the kernel, interleaved against a blank page (inbox-kernel-cost.ts).
const half = Math.max(1, Math.round(PARKS / 2));
const cost = await interleavedKernelCost({
  rounds: ROUNDS,
  parks: half,
  phase: (count, name) => parksPerSecond(count, name),
  page,
  inboxUrl: kernel.url,
  ws,
});

stopWatching();
await browser.close();
await kernel.close();

console.log(`
inbox bench (headless Chromium, SQLite kernel in its own process; a shared machine: under load)
  waiting before the page opened : ${waitingAtOpen}
  load to first card painted     : median ${fixed(percentile(painted, 0.5), 0)} ms, longest ${fixed(Math.max(...painted), 0)} ms of ${loads.length} loads (page's clock, from the navigation's start); cards in the page: ${cardsInPage}; title "${title}"
    wall time, harness included  : median ${fixed(percentile(walls, 0.5), 0)} ms (Playwright's goto and its polling for the card)
    the first page's read alone   : median ${fixed(percentile(pageReads, 0.5))} ms of ${pageReads.length} (30 rows, as the page's first read; from this process)
    the last load, page's clock  : document ${fixed(loadSplit.document, 0)} ms, scripts run ${fixed(loadSplit.scripts, 0)} ms, first page asked ${fixed(loadSplit.asked, 0)} ms and answered ${fixed(loadSplit.answered, 0)} ms, first card painted ${fixed(loadSplit.painted, 0)} ms
  park-to-pixel (${LATENCY} parks, 50 ms apart): p50 ${fixed(percentile(latencies, 0.5))} ms, p95 ${fixed(percentile(latencies, 0.95))} ms, never shown ${missing}${stageLines}
  parks/s without an inbox       : ${fixed(baseline.rate)}
  parks/s with the inbox open    : ${fixed(withInbox.rate)} (${fixed((1 - withInbox.rate / baseline.rate) * 100)} % slower; the browser shares this machine's cores)
  kernel CPU per park            : ${fixed(baseline.kernelMs, 2)} ms without an inbox, ${fixed(withInbox.kernelMs, 2)} ms with it (${change(withInbox.kernelMs, baseline.kernelMs)})
  kernel CPU per park, interleaved: ${ROUNDS} rounds of ${half} parks a side, in a rotating order
    beside a blank page          : ${fixed(cost.blank, 2)} ms
    one more feed subscriber     : ${fixed(cost.feed, 2)} ms (${change(cost.feed, cost.blank)}; the frames an open inbox is served, no browser page)
    a busy neighbour, no inbox   : ${fixed(cost.neighbour, 2)} ms (${change(cost.neighbour, cost.blank)}; a process walking 64 MB on the other core)
    the inbox open               : ${fixed(cost.inbox, 2)} ms (${change(cost.inbox, cost.blank)}; its feed and the browser's work beside the kernel)
  the page's cost per park       : ${fixed(feedFrames / PARKS, 1)} feed frames (${fixed(feedBytes / PARKS, 0)} bytes), ${fixed(requestsPerPark, 2)} HTTP requests (${fixed(readBytes / PARKS, 0)} bytes read); Chromium CPU ${withInbox.browserMs === null ? '—' : fixed(withInbox.browserMs, 2)} ms
  the page's main thread per park: ${fixed(perPark('TaskDuration'), 2)} ms busy (script ${fixed(perPark('ScriptDuration'), 2)}, style ${fixed(perPark('RecalcStyleDuration'), 2)}, layout ${fixed(perPark('LayoutDuration'), 2)})
  scrolling 2 s                  : longest frame ${fixed(Math.max(...frames))} ms, p95 ${fixed(percentile(frames, 0.95))} ms over ${frames.length} frames
`);
