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

    it('says neither "live" nor that nothing waits while the list is still being read', async () => {
      const run = await parkedWrites(f.ws, 'slow', 2);
      await eventually(async () => (await f.ws.decisions.page({ limit: 1 })).total === 2);
      let feedSpoke: Promise<unknown> = Promise.resolve();
      const page = await f.openSignedIn('#/recent', undefined, undefined, async (opened) => {
        // The waiting list's feed socket: the kernel's first frame says it is open.
        feedSpoke = new Promise((spoke) =>
          opened.on('websocket', (socket) => socket.once('framereceived', spoke)),
        );
      });
      await page.locator('.recent-status').filter({ hasText: 'by people' }).waitFor();
      // Every state the toolbar and the list go through, in order, from here on.
      await page.evaluate(() => {
        const seen: string[] = [];
        (window as unknown as { seen: string[] }).seen = seen;
        const look = () => {
          const status = document.querySelector('.toolbar .status')?.textContent ?? '';
          const empty = document.querySelector<HTMLElement>('.list-pane .empty');
          const said = empty && !empty.hidden ? (empty.textContent ?? '') : '';
          const rows = document.querySelectorAll('.list li.row').length;
          const state = `${status} | ${rows} rows | ${said}`;
          if (seen.at(-1) !== state) seen.push(state);
        };
        new MutationObserver(look).observe(document.body, {
          subtree: true,
          childList: true,
          characterData: true,
          attributes: true,
        });
      });
      // A slow network: the waiting list's reads reach the kernel only once let go.
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      await page.route(/decisions\.list/, async (route) => {
        await held;
        await route.continue();
      });
      await page.evaluate(() => {
        location.hash = '#/';
      });
      await feedSpoke;
      await page.locator('.list-pane .empty').waitFor();
      expect(await page.locator('.list-pane .empty').textContent()).toBe(
        'Reading what waits for you…',
      );
      expect(await page.locator('.toolbar .status').textContent()).not.toBe('live');
      release();
      await page.locator('.status[data-status="live"]').waitFor();
      expect(await page.locator('.list li.row').count()).toBe(2);
      const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
      expect(
        seen.filter((state) => state.startsWith('live') && !state.includes('| 2 rows')),
      ).toEqual([]);
      expect(seen.filter((state) => state.includes('Nothing is waiting'))).toEqual([]);
      expect(seen.at(-1)).toBe('live | 2 rows | ');
      await page.unroute(/decisions\.list/);
      for (const task of ['t1', 't2'])
        await deny((await f.ws.decisions.get(run.id, task)) ?? undefined);
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
      // "live" is said once the read after the feed opened is in: the list is as it stays.
      await page.locator('.status[data-status="live"]').waitFor();
      expect(await row.getAttribute('data-first-drawn')).toBe('yes');
      expect(await page.locator('.list li.row').count()).toBe(2);
      expect(lists.length).toBe(2);
    });
  },
);
