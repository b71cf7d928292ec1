/*
 * The inbox's load, for bench-inbox.ts: a page signed in through sessionStorage that notes when
 * each card first painted, and the load's figures on the page's own clock (milliseconds after
 * the navigation started, as a person opening the inbox sees it) beside the wall time the test
 * harness took (Playwright's navigation and polling included).
 */
import { writeFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';

/** What the page signs in with. */
export interface InboxSession {
  url: string;
  workspaceId: string;
  token: string;
}

/** One load of the inbox, up to its first card. */
export interface LoadFigures {
  /** Wall time from `goto` to Playwright seeing the first card (harness overhead included). */
  wall: number;
  /** On the page's clock: the document arrived, the module script ran (DOMContentLoaded). */
  document: number;
  scripts: number;
  /** On the page's clock: the first page of waiting calls was asked for and answered. */
  asked: number;
  answered: number;
  /** On the page's clock: the animation frame after the first card entered the page. */
  painted: number;
}

/** What the page logs once its first card has painted. */
const FIRST_CARD = 'airlock-bench: first card painted';

/**
 * Signs the page in and records, per card, the animation frame after it entered the page; the
 * first such frame is also logged to the console ({@link FIRST_CARD}).
 */
export async function prepareInboxPage(page: Page, session: InboxSession): Promise<void> {
  await page.addInitScript(
    (given) => {
      const { firstCard: _, ...signIn } = given;
      sessionStorage.setItem('airlock.inbox.session', JSON.stringify(signIn));
      const seen = new Map<string, number>();
      (globalThis as unknown as { __pixels: Map<string, number> }).__pixels = seen;
      // The observer only notes what was added; the cards are looked for in the next frame,
      // after its time is taken, so the looking does not delay the frame it times.
      let added: HTMLElement[] = [];
      new MutationObserver((records) => {
        const none = added.length === 0;
        for (const record of records) {
          for (const node of record.addedNodes) if (node instanceof HTMLElement) added.push(node);
        }
        if (!none || added.length === 0) return;
        requestAnimationFrame(() => {
          const now = Date.now();
          const nodes = added;
          added = [];
          const before = seen.size;
          for (const node of nodes) {
            if (!node.isConnected) continue;
            const cards = node.matches('[data-decision]')
              ? [node]
              : node.querySelectorAll('[data-decision]');
            for (const card of cards) {
              const key = card.getAttribute('data-decision');
              if (key && !seen.has(key)) seen.set(key, now);
            }
          }
          if (before === 0 && seen.size > 0) console.debug(given.firstCard);
        });
      }).observe(document, { childList: true, subtree: true });
    },
    { ...session, firstCard: FIRST_CARD },
  );
}

/**
 * Opens the inbox in a prepared page and times it to the first card. With `profile` (a file), a
 * V8 CPU profile of the load is written there; with `trace`, a Chromium trace.
 */
export async function loadInbox(
  browser: Browser,
  page: Page,
  url: string,
  files: { profile?: string | undefined; trace?: string | undefined } = {},
): Promise<LoadFigures> {
  const profiler = files.profile ? await page.context().newCDPSession(page) : null;
  if (profiler) {
    await profiler.send('Profiler.enable');
    await profiler.send('Profiler.setSamplingInterval', { interval: 200 });
    await profiler.send('Profiler.start');
  }
  if (files.trace) await browser.startTracing(page, { path: files.trace });
  const opened = performance.now();
  // The page's console says when the first card painted. Playwright's locators would inject
  // their script into the page and poll it, on the page's main thread, during the very load
  // being timed (about 60 ms of it in a trace); a person's browser runs no such thing.
  const painted = page.waitForEvent('console', {
    predicate: (message) => message.text() === FIRST_CARD,
    timeout: 60_000,
  });
  await page.goto(url, { waitUntil: 'commit' });
  await painted;
  const wall = performance.now() - opened;
  if (files.trace) await browser.stopTracing();
  if (profiler && files.profile) {
    const { profile } = await profiler.send('Profiler.stop');
    writeFileSync(files.profile, JSON.stringify(profile));
  }
  // (A string, not a function: the bundler's helpers do not exist in the page.)
  const clock = (await page.evaluate(`(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const list = performance.getEntriesByType('resource').find((entry) => entry.name.includes('decisions.list'));
    return {
      document: nav ? nav.responseEnd : NaN,
      scripts: nav ? nav.domContentLoadedEventEnd : NaN,
      asked: list ? list.startTime : NaN,
      answered: list ? list.responseEnd : NaN,
      painted: Math.min(...globalThis.__pixels.values()) - performance.timeOrigin,
    };
  })()`)) as Omit<LoadFigures, 'wall'>;
  return { wall, ...clock };
}

/** Loads the inbox `count` times, each in a fresh browser context (no cache, no session left). */
export async function coldLoads(
  browser: Browser,
  session: InboxSession,
  count: number,
): Promise<LoadFigures[]> {
  const loads: LoadFigures[] = [];
  for (let i = 0; i < count; i += 1) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await prepareInboxPage(page, session);
    loads.push(await loadInbox(browser, page, session.url));
    await context.close();
  }
  return loads;
}
