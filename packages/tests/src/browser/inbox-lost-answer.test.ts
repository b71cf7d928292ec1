import { describe, expect, it } from 'vitest';
import { browserSkipReason } from '../support/browser.js';
import { eventually, scriptedRun } from '../support/kernel.js';
import { type DroppableFeed, droppableFeed } from './held-feed.js';
import { useInboxFixture } from './inbox-fixture.js';

/*
 * A verb the kernel applied whose answer never reached the page (the connection dropped, as
 * when the kernel restarts under it): the card said "did not answer" and then, as the call's
 * event came, "It was decided elsewhere or it expired, and nothing was sent from here", or the
 * pane moved on without a word. The page now reads the row: it no longer waits, and a line says
 * what became of it.
 */
describe.skipIf(browserSkipReason !== null)(
  'the web inbox in headless Chromium: a verb whose answer is lost',
  { timeout: 90_000 },
  () => {
    const f = useInboxFixture({ width: 1280, height: 800 });

    it('says the call no longer waits, and how, when its deny was applied but not answered', async () => {
      const run = await f.ws.runs.create(
        scriptedRun('ask', [
          {
            tool_calls: [
              { name: 'bash', input: { command: 'rm -rf build' } },
              { name: 'bash', input: { command: 'ls build' } },
            ],
          },
          { final: 'done' },
        ]),
      );
      await eventually(
        async () => (await f.ws.runs.run(run.id).task('t2')).state === 'needs_approval',
      );
      const page = await f.openInbox();
      // The deny reaches the kernel, which applies it; its answer is dropped on the way back.
      await page.route(/decisions\.deny|\/deny(\?|$)/, async (route) => {
        await route.fetch();
        await route.abort('connectionreset');
      });
      const key = `${run.id}/t1`;
      await page.locator(`.list [data-decision="${key}"] .open`).click();
      const card = page.locator(`.detail article[data-decision="${key}"]`);
      await card.locator('input[name="reason"]').fill('no');
      await card.locator('[data-action="deny"]').click();
      const after = page.locator(`.afters .after[data-after="${key}"]`);
      await after.waitFor();
      expect(await after.textContent()).toMatch(
        /^No answer came from the kernel to your deny, and the call no longer waits: it was denied by test member\. /,
      );
      expect(await page.locator('.detail-left').count()).toBe(0);
      expect(await page.locator(`.list [data-decision="${key}"]`).count()).toBe(0);
      expect(f.consoleErrors.splice(0)).toEqual([
        'Failed to load resource: net::ERR_CONNECTION_RESET',
      ]);
      await page.unrouteAll({ behavior: 'wait' });
      const t2 = await f.ws.decisions.get(run.id, 't2');
      if (t2?.isApproval()) await t2.deny({ reason: 'done' });
    });

    it('says what the kernel has when an approve and the read after it went unanswered and the call then leaves', async () => {
      const run = await f.ws.runs.create(
        scriptedRun('ask', [
          {
            tool_calls: [
              { name: 'bash', input: { command: 'make install' } },
              { name: 'bash', input: { command: 'make check' } },
            ],
          },
          { final: 'done' },
        ]),
      );
      await eventually(
        async () => (await f.ws.runs.run(run.id).task('t2')).state === 'needs_approval',
      );
      let feed: DroppableFeed | undefined;
      const page = await f.openSignedIn('#/', undefined, undefined, async (opened) => {
        feed = await droppableFeed(opened);
      });
      await page.locator('.status[data-status="live"]').waitFor();
      // The network goes down under the approve: the kernel applies it, its answer is lost, and
      // the page's read of the row after it gets no answer either.
      let down = true;
      await page.route(/decisions\.approve|\/approve(\?|$)/, async (route) => {
        await route.fetch();
        await route.abort('connectionreset');
      });
      await page.route('**/trpc/tasks.get**', (route) =>
        down ? route.abort('connectionreset') : route.continue(),
      );
      const key = `${run.id}/t1`;
      await page.locator(`.list [data-decision="${key}"] .open`).click();
      const card = page.locator(`.detail article[data-decision="${key}"]`);
      await card.locator(':scope > .actions').waitFor();
      await feed?.drop();
      await card.locator('[data-action="approve"]').click();
      // The card says no answer came; its buttons are back.
      await card.locator('.message').filter({ hasText: /\S/ }).waitFor();
      // The network is back: the feed reconnects, and the call's approval reaches the page.
      down = false;
      feed?.restore();
      const left = page
        .locator('.detail-left')
        .filter({ hasText: /no longer waits:|nothing was sent/ });
      await left.waitFor();
      expect(await left.textContent()).toMatch(
        /No answer came from the kernel to your approval, and the call no longer waits: it was approved by test member, and /,
      );
      expect(await left.textContent()).not.toMatch(/nothing was sent/);
      expect(await page.locator(`.list [data-decision="${key}"]`).count()).toBe(0);
      expect(f.consoleErrors.splice(0).every((text) => /ERR_CONNECTION_RESET/.test(text))).toBe(
        true,
      );
      await page.unrouteAll({ behavior: 'wait' });
      const t2 = await f.ws.decisions.get(run.id, 't2');
      if (t2?.isApproval()) await t2.deny({ reason: 'done' });
    });
  },
);
