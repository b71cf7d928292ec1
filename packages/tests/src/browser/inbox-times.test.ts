import { describe, expect, it } from 'vitest';
import { browserSkipReason } from '../support/browser.js';
import { eventually, scriptedRun } from '../support/kernel.js';
import { useInboxFixture } from './inbox-fixture.js';

/** The times a page says ("3 min ago", "expires in 2 h") while it stays open. */
describe.skipIf(browserSkipReason !== null)(
  'the web inbox in headless Chromium: relative times',
  { timeout: 90_000 },
  () => {
    const f = useInboxFixture();

    it("says a row's and a card's age anew as time passes, with the local date and time on it", async () => {
      const run = await f.ws.runs.create(
        scriptedRun('ask', [
          { tool_calls: [{ name: 'bash', input: { command: 'make tidy' } }] },
          { final: 'tidy', expect: 'removed' },
        ]),
      );
      await eventually(
        async () => (await f.ws.runs.run(run.id).task('t1')).state === 'needs_approval',
      );
      // The page's clock is the test's to move: no wait on a real one.
      const page = await f.openSignedIn('#/', undefined, undefined, (opened) =>
        opened.clock.install(),
      );
      const row = page.locator(`.list [data-decision="${run.id}/t1"]`);
      await row.waitFor();
      await row.locator('.open').click();
      const card = page.locator('.detail article');
      await card.waitFor();
      const rowTime = row.locator('.line-meta time');
      const cardTime = card.locator('.meta time').first();
      expect(await rowTime.textContent()).toMatch(/just now|s ago/);

      // Twenty minutes after the call parked, however long the page took to open: the clock
      // jumps there and stops, firing the page's tick once.
      const created = (await f.ws.runs.run(run.id).task('t1')).created_at;
      await page.clock.pauseAt(created + 20 * 60_000);
      await eventually(async () => (await rowTime.textContent()) === '20 min ago');
      expect(await cardTime.textContent()).toBe('20 min ago');
      // The exact moment, in the person's own zone, is on the time itself.
      expect(await rowTime.getAttribute('datetime')).toBe(new Date(created).toISOString());
      expect(await rowTime.getAttribute('title')).toBe(
        await page.evaluate(
          (at) => new Date(at).toLocaleString([], { dateStyle: 'medium', timeStyle: 'medium' }),
          created,
        ),
      );
    });
  },
);
