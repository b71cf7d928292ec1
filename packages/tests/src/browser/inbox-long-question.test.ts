import { describe, expect, it } from 'vitest';
import { axeViolations, browserSkipReason } from '../support/browser.js';
import { eventually, scriptedRun } from '../support/kernel.js';
import { useInboxFixture } from './inbox-fixture.js';

/**
 * A question as long as the kernel takes (a 16 KB prompt, 64 options): the
 * prompt and the options scroll in boxes of their own, so Answer stays about
 * a screen from the card's top, and the card's name is a line, not the prompt.
 */
describe.skipIf(browserSkipReason !== null)(
  'the web inbox in headless Chromium: a very long question',
  { timeout: 90_000 },
  () => {
    const f = useInboxFixture({ width: 1280, height: 900 });

    it('keeps Answer within reach of a 15 KB prompt and 64 options, and the last option answerable', async () => {
      const prompt = `Pick one ${'lorem ipsum '.repeat(1300)}end of the prompt`;
      const options = Array.from({ length: 64 }, (_, i) => `option ${i} ${'word '.repeat(24)}`);
      const run = await f.ws.runs.create(
        scriptedRun('ask', [
          { tool_calls: [{ name: 'ask', input: { prompt, options } }] },
          { final: 'picked' },
        ]),
      );
      const page = await f.openInbox();
      const row = page.locator(`.list [data-decision="${run.id}/t1"]`);
      await row.locator('.open').click();
      const card = page.locator('.detail article');
      await card.waitFor();
      const layout = await card.evaluate((element) => {
        const top = element.getBoundingClientRect().top;
        const answer = element.querySelector('[data-action="answer"]') as HTMLElement;
        const options = element.querySelector('fieldset.options') as HTMLElement;
        const whole = element.querySelector('.prompt pre') as HTMLElement | null;
        return {
          answerBelowTop: answer.getBoundingClientRect().top - top,
          optionsScroll: options.scrollHeight > options.clientHeight,
          promptScrolls: whole !== null && whole.scrollHeight > whole.clientHeight,
          promptWhole: whole?.textContent,
          name: element.getAttribute('aria-label') ?? '',
          viewport: window.innerHeight,
        };
      });
      expect(layout.answerBelowTop).toBeLessThan(1.5 * layout.viewport);
      expect(layout.optionsScroll).toBe(true);
      expect(layout.promptScrolls).toBe(true);
      expect(layout.promptWhole).toBe(prompt);
      expect(layout.name.length).toBeLessThan(200);
      expect(await card.locator('.prompt .warning').textContent()).toContain('end of the prompt');

      // The last option, out of the box's view, is reached and answered by keyboard.
      const last = card.getByRole('radio', { name: /^option 63 / });
      await last.focus();
      await page.keyboard.press('Space');
      expect(await last.isChecked()).toBe(true);
      await card.getByRole('button', { name: /^Answer/ }).click();
      await eventually(async () => (await f.ws.runs.run(run.id).task('t1')).state === 'succeeded');
      expect(await axeViolations(page)).toEqual([]);
    });
  },
);
