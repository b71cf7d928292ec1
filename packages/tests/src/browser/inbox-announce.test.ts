import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, browserSkipReason } from '../support/browser.js';
import { eventually } from '../support/kernel.js';
import { parkedWrites, useInboxFixture } from './inbox-fixture.js';

/**
 * The waiting count was itself a live region, so a burst of parks had a
 * screen reader say "4 waiting", "7 waiting", "10 waiting"… one after the
 * other. The count now changes on sight at once, and is said at most once
 * every 10 s, as it stands then.
 */
describe.skipIf(browserSkipReason !== null)(
  'the web inbox in headless Chromium: what a screen reader hears of a burst',
  { timeout: 120_000 },
  () => {
    const f = useInboxFixture();

    /** The live regions a screen reader speaks from that hold `selector`'s element: none is wanted. */
    const LIVE =
      '[aria-live]:not([aria-live="off"]), [role="status"], [role="alert"], [role="log"]';
    const liveAround = (page: Page, selector: string) =>
      page
        .locator(selector)
        .evaluate((element, live) => element.closest(live)?.outerHTML.slice(0, 80) ?? null, LIVE);

    it('speaks no list, pane or story as it changes: only the short status lines are live', async () => {
      const run = await parkedWrites(f.ws, 'quiet', 2);
      const page = await f.openInbox();
      await page.locator(`.list [data-decision="${run.id}/t1"] .open`).click();
      await page.locator('.detail article').waitFor();
      for (const selector of ['.list', '.detail', '.toolbar .count']) {
        expect(await liveAround(page, selector)).toBeNull();
      }
      await page.goto(`${f.kernel.url}/#/runs/${run.id}`);
      await page.locator('.run-view .row[data-task="t1"]').waitFor();
      expect(await liveAround(page, '.run-view .rows')).toBeNull();
      for (const decision of await f.ws.decisions.list()) {
        if (decision.isApproval()) await decision.deny({ reason: 'quiet' });
      }
    });

    it('says the waiting count once at a burst and once as it ends, not once a park', async () => {
      const page = await f.openSignedIn('#/');
      await page.locator('.status[data-status="live"]').waitFor();
      // The page's clock stands still from here: however long the burst takes on a loaded
      // machine, the announcer's 10 s pause ends only when the test moves the clock on.
      await page.clock.pauseAt(Date.now() + 1000);
      // Every text a status region of the toolbar takes, and every count shown.
      await page.evaluate(() => {
        const seen = { said: [] as string[], shown: [] as string[] };
        (window as unknown as { seen: typeof seen }).seen = seen;
        const toolbar = document.querySelector('.toolbar')!;
        new MutationObserver(() => {
          for (const status of toolbar.querySelectorAll('[role="status"]')) {
            const text = status.textContent ?? '';
            if (seen.said.at(-1) !== text) seen.said.push(text);
          }
          const count = toolbar.querySelector('.count')?.textContent ?? '';
          if (seen.shown.at(-1) !== count) seen.shown.push(count);
        }).observe(toolbar, { subtree: true, childList: true, characterData: true });
      });
      const seen = () =>
        page.evaluate(
          () => (window as unknown as { seen: { said: string[]; shown: string[] } }).seen,
        );
      for (let i = 0; i < 6; i += 1) {
        await parkedWrites(f.ws, `burst-${i}`, 3);
        await eventually(async () => (await seen()).shown.at(-1) === `${3 * (i + 1)} waiting`);
      }
      const during = await seen();
      expect(during.shown.length).toBeGreaterThanOrEqual(6);
      expect(during.said.length).toBeLessThanOrEqual(2);
      await page.clock.fastForward(10_000);
      await eventually(async () => (await seen()).said.at(-1) === '18 waiting');
      // axe-core waits on the page's timers.
      await page.clock.resume();
      expect(await axeViolations(page)).toEqual([]);
      for (const decision of await f.ws.decisions.list()) {
        if (decision.isApproval()) await decision.deny({ reason: 'burst' });
      }
    });
  },
);
