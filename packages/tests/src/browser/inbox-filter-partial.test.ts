import { describe, expect, it } from 'vitest';
import { axeViolations, browserSkipReason } from '../support/browser.js';
import { eventually, scriptedRun } from '../support/kernel.js';
import { parkedWrites, useInboxFixture } from './inbox-fixture.js';

/*
 * The filter searches the rows the page has loaded. A person looking for `rm -rf` among 151
 * waiting calls, 30 or 130 of them loaded, saw an empty list and nothing saying the rest were
 * not searched: as if no such call waited. A line under the filter now says how many loaded
 * calls match and that the others were not searched.
 */
describe.skipIf(browserSkipReason !== null)(
  'the web inbox in headless Chromium: a filter over a list not loaded in full',
  { timeout: 120_000 },
  () => {
    const f = useInboxFixture({ width: 1280, height: 800 });

    it('says the filter searched only the loaded calls, until every one is loaded', async () => {
      const oldest = await f.ws.runs.create(
        scriptedRun('ask', [
          { tool_calls: [{ name: 'bash', input: { command: 'rm -rf /srv/data' } }] },
          { final: 'done' },
        ]),
      );
      for (const label of ['one', 'two', 'three']) await parkedWrites(f.ws, label, 50);
      await eventually(async () => (await f.ws.decisions.page({ limit: 1 })).total === 151, {
        timeoutMs: 60_000,
      });
      const page = await f.openInbox();
      await page.locator('.count').filter({ hasText: '151 waiting' }).waitFor();
      const note = page.locator('.filter-note');
      expect(await note.isHidden()).toBe(true);

      await page.keyboard.press('/');
      await page.keyboard.type('rm -rf');
      await expect
        .poll(() => note.textContent(), { timeout: 30_000 })
        .toMatch(
          /^0 of the \d+ loaded calls match the filter; \d+ more waiting calls are not loaded, so not searched: "Show more" loads them\.$/,
        );
      expect(await note.getAttribute('role')).toBe('status');
      expect(await axeViolations(page)).toEqual([]);

      // Every page read: the call is found, and the line says every call was searched.
      await eventually(
        async () => {
          await page
            .locator('.more:not([hidden])')
            .click({ timeout: 1000 })
            .catch(() => {});
          return page.locator('.more').isHidden();
        },
        { timeoutMs: 60_000, what: 'every waiting call loaded' },
      );
      await page.locator(`.list [data-decision="${oldest.id}/t1"]`).waitFor();
      expect(await note.textContent()).toBe('1 of the 151 loaded calls match the filter.');

      await page.locator('input[name="filter"]').fill('');
      await note.waitFor({ state: 'hidden' });
    });
  },
);
