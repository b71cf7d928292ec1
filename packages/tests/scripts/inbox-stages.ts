/*
 * The stages of park-to-pixel in the inbox bench, timed on Chromium's own clock through the
 * DevTools protocol: when the feed frame announcing a park reached the page and, for a row the
 * page reads as it comes (`tasks.get`; a first park is drawn from its events and not read), when
 * that read was sent and answered. With the kernel's park time and the first frame after the row
 * entered the page, they split park-to-pixel into the feed's delivery and the page's own work up
 * to the frame that shows the row; any read's round trip is timed beside them.
 */
import type { Page } from 'playwright-core';

/** Milliseconds per stage, one sample per park that went through the stage. */
export interface StageBreakdown {
  frame: number[];
  send: number[];
  read: number[];
  /** Feed frame to the first frame painted with the row (a preview, or the read row). */
  paint: number[];
}

/** Starts timing the page's feed frames and row reads; call before the page opens. */
export async function watchStages(page: Page): Promise<{
  breakdown(
    keys: string[],
    parkedAt: Map<string, number>,
    pixels: Map<string, number>,
  ): StageBreakdown;
}> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  // Chromium's timestamps are monotonic seconds; a request's wallTime ties them to the epoch.
  let offsetMs: number | null = null;
  const wall = (timestamp: number) => timestamp * 1000 + (offsetMs ?? 0);
  const frameAt = new Map<string, number>();
  const sentAt = new Map<string, number>();
  const requestKey = new Map<string, string>();
  const answeredAt = new Map<string, number>();
  cdp.on('Network.requestWillBeSent', (event) => {
    offsetMs ??= event.wallTime * 1000 - event.timestamp * 1000;
    const url = decodeURIComponent(event.request.url);
    if (!url.includes('/trpc/tasks.get')) return;
    const run = /"run_id":"([^"]+)"/.exec(url)?.[1];
    const task = /"task_key":"([^"]+)"/.exec(url)?.[1];
    if (!run || !task) return;
    const key = `${run}/${task}`;
    if (!sentAt.has(key)) {
      sentAt.set(key, wall(event.timestamp));
      requestKey.set(event.requestId, key);
    }
  });
  cdp.on('Network.loadingFinished', (event) => {
    const key = requestKey.get(event.requestId);
    if (key && !answeredAt.has(key)) answeredAt.set(key, wall(event.timestamp));
  });
  cdp.on('Network.webSocketFrameReceived', (event) => {
    const text = event.response.payloadData;
    if (!text.includes('task.parked')) return;
    const run = /"run_id":"([^"]+)"/.exec(text)?.[1];
    const task = /"task_key":"([^"]+)"/.exec(text)?.[1];
    if (run && task && !frameAt.has(`${run}/${task}`)) {
      frameAt.set(`${run}/${task}`, wall(event.timestamp));
    }
  });
  return {
    breakdown(keys, parkedAt, pixels) {
      const out: StageBreakdown = { frame: [], send: [], read: [], paint: [] };
      for (const key of keys) {
        const parked = parkedAt.get(key);
        const frame = frameAt.get(key);
        const sent = sentAt.get(key);
        const answered = answeredAt.get(key);
        const pixel = pixels.get(key);
        if (parked === undefined || frame === undefined || pixel === undefined) continue;
        out.frame.push(frame - parked);
        out.paint.push(pixel - frame);
        // A first park is drawn from its events: the page reads its row only when a person opens it.
        if (sent !== undefined && answered !== undefined) {
          out.send.push(sent - frame);
          out.read.push(answered - sent);
        }
      }
      return out;
    },
  };
}
