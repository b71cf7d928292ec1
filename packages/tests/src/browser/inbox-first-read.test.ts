import type { Decision } from '@airlock/sdk';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserSkipReason } from '../support/browser.js';
import { eventually } from '../support/kernel.js';
import { type HeldFeed, holdFeed } from './held-feed.js';
import { parkedWrites, useInboxFixture } from './inbox-fixture.js';

/**
 * The inbox reads its first page beside the feed's opening, not after it: the
 * first cards paint while the feed connects. Whatever changed between that
 * read and the feed going live must still show, and when nothing did the list
 * is not drawn twice. The feed's socket is held back here (Playwright routes
 * it) while the kernel changes under the page.
 */
describe.skipIf(browserSkipReason !== null)(
  'the inbox: the first page read before the feed is live',
  { timeout: 120_000 },
  () => {
    const f = useInboxFixture({ width: 1280, height: 800 });

    const deny = async (decision: Decision | undefined) => {
      if (decision?.kind !== 'approval') throw new Error('an approval was expected');
      await decision.deny({ reason: 'not now' });
    };

    /** A signed-in inbox whose feed socket reaches the kernel only once `release` is called. */
    async function openWithFeedHeld(): Promise<{
      page: Page;
      release: () => void;
      lists: string[];
    }> {
      let held: HeldFeed | undefined;
      const lists: string[] = [];
      const page = await f.openSignedIn('#/', undefined, undefined, async (opened) => {
        held = await holdFeed(opened);
        opened.on('request', (request) => {
          if (request.url().includes('decisions.list')) lists.push(request.url());
        });
      });
      return { page, release: () => held?.release(), lists };
    }

    it('paints the first page before the feed is live, then shows what changed meanwhile', async () => {
      const first = await parkedWrites(f.ws, 'before', 3);
      await eventually(async () => (await f.ws.decisions.page({ limit: 1 })).total === 3);
      const { page, release, lists } = await openWithFeedHeld();
      const rows = page.locator('.list li.row');
      await eventually(async () => (await rows.count()) === 3, { what: 'three rows, no feed' });
      expect(await page.locator('.status').getAttribute('data-status')).not.toBe('live');

      // While the feed is held back: one row is denied and a new call parks.
      const [denied] = await f.ws.decisions.list();
      await deny(denied);
      const later = await parkedWrites(f.ws, 'meanwhile', 1);
      await eventually(async () => (await f.ws.decisions.page({ limit: 1 })).total === 3);
      release();

      await page.locator('.status[data-status="live"]').waitFor();
      await page.locator(`[data-decision="${later.id}/t1"]`).waitFor();
      await page
        .locator(`[data-decision="${denied!.run_id}/${denied!.task_key}"]`)
        .waitFor({ state: 'detached' });
      expect(await rows.count()).toBe(3);
      expect(await page.locator('.count').textContent()).toBe('3 waiting');
      // The first read, the read once live (it differed), and the list read afresh.
      expect(lists.length).toBe(3);
      expect(await page.locator(`[data-decision="${first.id}/t2"]`).count()).toBe(1);
      for (const decision of await f.ws.decisions.list()) await deny(decision);
    });

    it('keeps the rows it drew when the read once live agrees with the first', async () => {
      const run = await parkedWrites(f.ws, 'steady', 2);
      await eventually(async () => (await f.ws.decisions.page({ limit: 1 })).total === 2);
      const { page, release, lists } = await openWithFeedHeld();
      const row = page.locator(`[data-decision="${run.id}/t1"]`);
      await row.waitFor();
      // A mark on the drawn row's element: it survives only if the row is not drawn again.
      await row.evaluate((element) => element.setAttribute('data-first-drawn', 'yes'));
      release();
      await page.locator('.status[data-status="live"]').waitFor();
      await eventually(() => lists.length === 2, { what: 'the read once live' });
      // Let the second read's answer land before looking.
      await page.waitForTimeout(200);
      expect(await row.getAttribute('data-first-drawn')).toBe('yes');
      expect(await page.locator('.list li.row').count()).toBe(2);
      expect(lists.length).toBe(2);
    });
  },
);
