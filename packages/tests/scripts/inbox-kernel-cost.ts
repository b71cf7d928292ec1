/*
 * What an open inbox costs the kernel, for bench-inbox.ts: the kernel's CPU per park on four
 * sides, interleaved round by round in a rotating order, since one phase against another minutes
 * apart drifts by more than the 10 % looked for (the store and its write-ahead log grow, and the
 * machine is shared):
 * - blank: the bench's page blank (the browser open, idle);
 * - feed: blank, and one more workspace feed subscriber read by this process, no browser page:
 *   the frames the kernel serves an open inbox, and nothing else;
 * - neighbour: blank, beside a process keeping a core busy walking 64 MB of memory: what a busy
 *   neighbour on this two-core machine does to the kernel's CPU per park by itself;
 * - inbox: the inbox open in the page (its feed, and the browser's work on each park beside the
 *   kernel).
 */
import { spawn } from 'node:child_process';
import type { FeedEvent, Workspace } from '@airlock/sdk';
import type { Page } from 'playwright-core';

/** The sides compared, in the order of the first round. */
export const SIDES = ['blank', 'feed', 'neighbour', 'inbox'] as const;
export type Side = (typeof SIDES)[number];

/**
 * A workspace feed subscriber from now on, each event handed to `onEvent` (or dropped) as fast as
 * it comes; resolves once live, to a function that stops it.
 */
export async function feedSubscriber(
  ws: Workspace,
  onEvent: (event: FeedEvent) => void = () => {},
): Promise<() => void> {
  const controller = new AbortController();
  let live: () => void = () => {};
  const open = new Promise<void>((resolve) => {
    live = resolve;
  });
  const feed = ws.feed({
    after: 'latest',
    signal: controller.signal,
    onStatus: (status) => {
      if (status === 'open') live();
    },
  });
  void (async () => {
    try {
      for await (const event of feed as AsyncIterable<FeedEvent>) onEvent(event);
    } catch {
      // aborted
    }
  })();
  await open;
  return () => controller.abort();
}

/** A process keeping one core busy over 64 MB of memory (a working set like a browser's). */
function busyNeighbour(): () => void {
  const child = spawn(
    process.execPath,
    [
      '-e',
      'const b = new Float64Array(8e6); for (;;) for (let i = 0; i < b.length; i += 8) b[i] += 1;',
    ],
    { stdio: 'ignore' },
  );
  return () => child.kill('SIGKILL');
}

/**
 * The kernel's CPU per park (ms) on each side, averaged over `rounds` rounds of `parks` parks a
 * side; `phase` parks and returns the kernel's CPU per park. Leaves the page on the inbox.
 */
export async function interleavedKernelCost(options: {
  rounds: number;
  parks: number;
  phase: (count: number, name: string) => Promise<{ kernelMs: number }>;
  page: Page;
  inboxUrl: string;
  ws: Workspace;
}): Promise<Record<Side, number>> {
  const { page, phase, parks } = options;
  const totals: Record<Side, number> = { blank: 0, feed: 0, neighbour: 0, inbox: 0 };
  let onInbox = true;
  const blankPage = async () => {
    if (onInbox) await page.goto('about:blank');
    onInbox = false;
  };
  for (let round = 0; round < options.rounds; round += 1) {
    for (let i = 0; i < SIDES.length; i += 1) {
      const side = SIDES[(round + i) % SIDES.length] as Side;
      const name = `${side}-${round}`;
      let done: () => void = () => {};
      if (side === 'inbox') {
        await page.goto(options.inboxUrl);
        await page.locator('.status[data-status="live"]').waitFor();
        // The read the page makes once its feed is live lands before the phase.
        await page.waitForTimeout(300);
        onInbox = true;
      } else {
        await blankPage();
        if (side === 'feed') done = await feedSubscriber(options.ws);
        if (side === 'neighbour') done = busyNeighbour();
      }
      totals[side] += (await phase(parks, name)).kernelMs;
      done();
    }
  }
  if (!onInbox) {
    await page.goto(options.inboxUrl);
    await page.locator('.status[data-status="live"]').waitFor();
  }
  const mean = (side: Side) => totals[side] / options.rounds;
  return {
    blank: mean('blank'),
    feed: mean('feed'),
    neighbour: mean('neighbour'),
    inbox: mean('inbox'),
  };
}
