import { describe, expect, it } from 'vitest';
import { browserSkipReason } from '../support/browser.js';
import { eventually, scriptedRun } from '../support/kernel.js';
import { useInboxFixture } from './inbox-fixture.js';

/*
 * A call whose command holds a right-to-left override (Trojan Source: `ls build ‮# txt.ssecca`
 * reads as `ls build accss.txt #`): its card shows the override as a mark, but the input editor
 * put it in the text area as it is, live, so the person editing the call read it reordered. The
 * editor writes it as its JSON escape, and the edit runs with the very character.
 */
describe.skipIf(browserSkipReason !== null)(
  'the web inbox in headless Chromium: editing a call with hidden characters',
  { timeout: 90_000 },
  () => {
    const f = useInboxFixture({ width: 1280, height: 900 });

    it('shows a bidi override in the editor as \\u202e, and runs the edit with it', async () => {
      const command = 'ls build \u202e# txt.ssecca';
      const run = await f.ws.runs.create(
        scriptedRun('ask', [
          { tool_calls: [{ name: 'bash', input: { command } }] },
          { final: 'done' },
        ]),
      );
      await eventually(
        async () => (await f.ws.runs.run(run.id).task('t1')).state === 'needs_approval',
      );
      const page = await f.openInbox();
      await page.keyboard.press('j');
      const card = page.locator(`.detail article[data-decision="${run.id}/t1"]`);
      await card.locator(':scope > .actions').waitFor();
      expect(await card.locator('pre.command').textContent()).toBe(
        '$ ls build ⟨U+202E⟩# txt.ssecca',
      );
      await page.keyboard.press('e');
      const text = card.locator('textarea[name="tool-input"]');
      await text.waitFor();
      const shown = await text.inputValue();
      expect(shown).toBe('{\n  "command": "ls build \\u202e# txt.ssecca"\n}');
      expect(shown).not.toContain('\u202e');
      // Opened and not changed: nothing to approve with changes.
      expect(await card.locator('.edit-diff').textContent()).toBe('No change yet.\n');

      await text.fill(shown.replace('ls build', 'ls dist'));
      expect(await card.locator('.edit-diff .diff-added').allTextContents()).toEqual([
        '+   "command": "ls dist \\u202e# txt.ssecca"\n',
      ]);
      await text.press('Control+Enter');
      await eventually(() => f.executed.includes('ls dist \u202e# txt.ssecca'), {
        what: 'the edited command, with its override, run',
      });
      await f.ended(run.id);
    });
  },
);
