import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, browserSkipReason } from '../support/browser.js';
import { scriptedRun } from '../support/kernel.js';
import { useInboxFixture } from './inbox-fixture.js';

/*
 * The input editor's error line was a live region that the check rewrote at every keystroke,
 * so a screen reader said "Not valid JSON (line 1, column 12)…", "(…column 13)…" as the person
 * typed through the invalid text every edit passes. The error line is now shown (and read with
 * the field, aria-describedby) but not spoken; what a send attempt finds is said once per
 * attempt: an invalid text's error, or that nothing changed.
 */

/** Live regions a screen reader speaks from. */
const LIVE = '[aria-live]:not([aria-live="off"]), [role="status"], [role="alert"], [role="log"]';

/** Records the text of every change of a live region inside `root`, in order. */
async function listen(page: Page, root = '.detail') {
  await page.evaluate(
    ([live, root]) => {
      const said: string[] = [];
      (window as unknown as { said: string[] }).said = said;
      new MutationObserver((records) => {
        const changed = new Set<Element>();
        for (const record of records) {
          const node = record.target;
          const element = node instanceof Element ? node : node.parentElement;
          const region = element?.closest(live);
          if (region) changed.add(region);
        }
        for (const region of changed) {
          const text = region.textContent ?? '';
          if (text !== '') said.push(text);
        }
      }).observe(document.querySelector(root) as Node, {
        subtree: true,
        childList: true,
        characterData: true,
      });
    },
    [LIVE, root] as const,
  );
  return () => page.evaluate(() => [...(window as unknown as { said: string[] }).said]);
}

describe.skipIf(browserSkipReason !== null)(
  'the web inbox in headless Chromium: what a screen reader hears of the input editor',
  { timeout: 90_000 },
  () => {
    const f = useInboxFixture();

    it('says nothing while the person types, and what each send attempt found once', async () => {
      const run = await f.ws.runs.create(
        scriptedRun('ask', [
          { tool_calls: [{ name: 'bash', input: { command: 'rm -rf ./build' } }] },
          { final: 'cleaned' },
        ]),
      );
      const page = await f.openInbox();
      await page.locator(`.list [data-decision="${run.id}/t1"] .open`).click();
      const card = page.locator('.detail article');
      await card.waitFor();
      await card.locator('[data-action="edit"]').click();
      const text = card.locator('textarea[name="tool-input"]');
      const said = await listen(page);

      // Typed key by key, invalid all the way: the error line follows, a screen reader hears nothing.
      await text.fill('');
      await text.pressSequentially('{"command": "rm -rf ./build/cache"');
      const error = card.locator('.edit-error');
      expect(await error.textContent()).toMatch(/^Not valid JSON \(line 1, column \d+\): .+/);
      expect(await text.getAttribute('aria-invalid')).toBe('true');
      expect(await said()).toEqual([]);

      // A send attempt says its error, once.
      await text.press('Control+Enter');
      const errorText = await error.textContent();
      await expect.poll(said, { timeout: 30_000 }).toEqual([errorText]);
      // Typing on, still invalid, adds nothing; valid again, nothing either.
      await text.pressSequentially(' ');
      await text.pressSequentially('}');
      expect(await error.textContent()).toBe('');
      expect(await said()).toEqual([errorText]);

      // The original text sent: nothing changed, said once.
      await text.fill('{\n  "command": "rm -rf ./build"\n}');
      await text.press('Control+Enter');
      await expect
        .poll(said, { timeout: 30_000 })
        .toEqual([errorText, 'Nothing changed: use Approve to approve the call as it is.']);
      expect(await error.textContent()).toBe(
        'Nothing changed: use Approve to approve the call as it is.',
      );
      expect(await axeViolations(page)).toEqual([]);

      // An edit approved: the card goes, and what happened is said once, on the whole page.
      const heard = await listen(page, 'body');
      await text.fill('{\n  "command": "rm -rf ./build/cache"\n}');
      await text.press('Control+Enter');
      await page.locator(`.after[data-after="${run.id}/t1"]`).waitFor();
      await expect
        .poll(heard, { timeout: 30_000 })
        .toContain('Approved by you with your changes; running.');
      expect((await heard()).filter((words) => words.includes('Approved by you'))).toHaveLength(1);
      expect(await axeViolations(page)).toEqual([]);
    });
  },
);
