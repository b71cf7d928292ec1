import { describe, expect, it } from 'vitest';
import { axeViolations, browserSkipReason, saveScreenshot } from '../support/browser.js';
import { eventually, scriptedRun } from '../support/kernel.js';
import { type HeldFeed, holdFeed } from './held-feed.js';
import { useInboxFixture } from './inbox-fixture.js';

/** Approve with changes: a person edits a parked call's input, reads the diff, and approves. */
describe.skipIf(browserSkipReason !== null)(
  'the web inbox in headless Chromium: approve with changes',
  { timeout: 90_000 },
  () => {
    const f = useInboxFixture();

    it('edits a call by keyboard: invalid JSON sends nothing, a refused edit says why, the edit runs', async () => {
      const run = await f.ws.runs.create(
        scriptedRun(
          'ask',
          [
            { tool_calls: [{ name: 'bash', input: { command: 'rm -rf ./build' } }] },
            { final: 'cleaned', expect: 'removed' },
          ],
          [
            {
              tool: 'bash',
              path: 'command',
              match: '*curl*',
              verdict: 'deny',
              reason: 'no downloads',
            },
          ],
        ),
      );
      const page = await f.openSignedIn('#/');
      const approves: string[] = [];
      // An approval is a POST to the row's approve route (the SDK sends writes over REST).
      page.on('request', (request) => {
        if (request.method() === 'POST' && /\/tasks\/[^/]+\/approve$/.test(request.url())) {
          approves.push(request.postData() ?? '');
        }
      });
      const row = page.locator(`.list [data-decision="${run.id}/t1"]`);
      await row.waitFor();
      const before = await f.ws.runs.run(run.id).task('t1');

      // j opens the call, e opens its editor with the cursor in it.
      await page.locator('body').click({ position: { x: 5, y: 5 } });
      await page.keyboard.press('j');
      const card = page.locator('.detail article');
      await card.waitFor();
      await page.keyboard.press('e');
      const text = card.locator('textarea[name="tool-input"]');
      expect(await text.evaluate((element) => element === document.activeElement)).toBe(true);
      expect(await text.inputValue()).toBe('{\n  "command": "rm -rf ./build"\n}');

      // Invalid JSON: said at once, where it goes wrong, and Ctrl+Enter sends nothing.
      await page.keyboard.press('Control+A');
      await page.keyboard.type('{"command": "rm -rf ./build/cache"');
      const error = card.locator('.edit-error');
      await error.filter({ hasText: 'Nothing was sent.' }).waitFor();
      expect(await error.textContent()).toMatch(/^Not valid JSON \(line 1, column \d+\): .+/);
      expect(await text.getAttribute('aria-invalid')).toBe('true');
      await page.keyboard.press('Control+Enter');
      expect(await axeViolations(page)).toEqual([]);
      expect(approves).toEqual([]);

      // An edit a rule refuses: the kernel's code in words, and the call waits as it was.
      await text.fill(JSON.stringify({ command: 'curl -sO https://example.com/x.sh' }, null, 2));
      expect(await card.locator('.edit-diff .diff-removed').allTextContents()).toEqual([
        '-   "command": "rm -rf ./build"\n',
      ]);
      await page.keyboard.press('Tab');
      expect(
        await page.evaluate(() => (document.activeElement as HTMLElement).dataset.action),
      ).toBe('approve-edited');
      await page.keyboard.press('Enter');
      const message = card.locator('.message');
      await message.filter({ hasText: 'edit_refused' }).waitFor();
      expect(await message.textContent()).toMatch(
        /^Your edit was refused and nothing changed: the call still waits as it was \(edit_refused\)\. .*no downloads/,
      );
      expect(approves).toHaveLength(1);
      // Chromium logs the refusal's 422 itself; that line is the only console error expected.
      expect(f.consoleErrors.splice(0)).toEqual([
        'Failed to load resource: the server responded with a status of 422 (Unprocessable Entity)',
      ]);
      const unchanged = await f.ws.runs.run(run.id).task('t1');
      expect(unchanged).toMatchObject({
        state: 'needs_approval',
        tool_input: { command: 'rm -rf ./build' },
        version: before.version,
      });
      // The refusal gives the focus back to where it was.
      expect(
        await page.evaluate(() => (document.activeElement as HTMLElement).dataset.action),
      ).toBe('approve-edited');

      // A line wider than the diff box: the box joins the Tab order and scrolls by keyboard.
      const diffBox = card.locator('.edit-diff');
      expect(await diffBox.getAttribute('tabindex')).toBeNull();
      await text.fill(JSON.stringify({ command: `rm -rf ./build/${'x'.repeat(400)}` }));
      expect(await diffBox.getAttribute('tabindex')).toBe('0');
      await text.focus();
      await page.keyboard.press('Tab');
      expect(
        await page.evaluate(() => document.activeElement?.classList.contains('edit-diff')),
      ).toBe(true);
      await page.keyboard.press('ArrowRight');
      await expect
        .poll(() => diffBox.evaluate((box) => box.scrollLeft), { timeout: 30_000 })
        .toBeGreaterThan(0);

      // A narrower edit: the diff against the original, then Ctrl+Enter approves it.
      await text.fill(JSON.stringify({ command: 'rm -rf ./build/cache' }, null, 2));
      expect(await card.locator('.edit-diff .diff-added').allTextContents()).toEqual([
        '+   "command": "rm -rf ./build/cache"\n',
      ]);
      expect(await card.locator('.edit-error').textContent()).toBe('');
      expect(await axeViolations(page)).toEqual([]);
      await saveScreenshot(page, 'inbox-edit.png');
      await text.press('Control+Enter');
      await row.waitFor({ state: 'detached' });
      const line = page.locator(`.after[data-after="${run.id}/t1"]`);
      expect(await line.textContent()).toContain('Approved by you with your changes; running.');
      expect(await f.ended(run.id)).toMatchObject({ state: 'completed', final_answer: 'cleaned' });
      expect(f.executed).toEqual(['rm -rf ./build/cache']);

      // The run's story tells what the person changed, by name.
      await line.getByRole('link', { name: 'See the run' }).click();
      const story = page.locator('.run-view .row[data-task="t1"]');
      const edited = story.locator('.decision[data-outcome="edited"]');
      await edited.waitFor();
      expect(await edited.textContent()).toMatch(
        /edited by test member: command "rm -rf \.\/build" → "rm -rf \.\/build\/cache"$/,
      );
      expect(await story.locator('.decision[data-outcome="approved"]').textContent()).toMatch(
        /approved by test member$/,
      );
      expect(await axeViolations(page)).toEqual([]);
    });

    it("approves with changes from the run story: the same editor, refusals in words, the edit kept through other rows' events", async () => {
      const run = await f.ws.runs.create(
        scriptedRun(
          'ask',
          [
            {
              tool_calls: [
                { name: 'bash', input: { command: 'rm -rf ./dist' } },
                { name: 'bash', input: { command: 'du -sh ./dist' } },
              ],
            },
            { final: 'tidied' },
          ],
          [
            {
              tool: 'bash',
              path: 'command',
              match: '*curl*',
              verdict: 'deny',
              reason: 'no downloads',
            },
          ],
        ),
      );
      await eventually(async () =>
        (await f.ws.runs.run(run.id).tasks()).every((task) => task.state === 'needs_approval'),
      );
      const page = await f.openSignedIn(`#/runs/${run.id}`);
      const story = page.locator('.run-view');
      const row = story.locator('.row[data-task="t1"]');
      await row.getByRole('button', { name: 'Edit input of bash rm -rf ./dist (task t1)' }).click();
      const text = row.locator('textarea[name="tool-input"]');
      expect(await text.evaluate((element) => element === document.activeElement)).toBe(true);
      expect(await text.inputValue()).toBe('{\n  "command": "rm -rf ./dist"\n}');

      // A rule refuses the edit: said in words on the row, and the call waits as it was.
      await text.fill(JSON.stringify({ command: 'curl -sO https://example.com/x.sh' }));
      await row.getByRole('button', { name: /^Approve with changes: bash rm -rf/ }).click();
      const message = row.locator('.row-actions .message');
      await message.filter({ hasText: 'edit_refused' }).waitFor();
      expect(await message.textContent()).toMatch(
        /^Your edit was refused and nothing changed: the call still waits as it was \(edit_refused\)\. .*no downloads/,
      );
      expect(f.consoleErrors.splice(0)).toEqual([
        'Failed to load resource: the server responded with a status of 422 (Unprocessable Entity)',
      ]);
      expect(await f.ws.runs.run(run.id).task('t1')).toMatchObject({
        state: 'needs_approval',
        tool_input: { command: 'rm -rf ./dist' },
      });

      // Another row of the run moves on while the person types: the edit and the cursor stay.
      await text.fill(JSON.stringify({ command: 'rm -rf ./dist/cache' }, null, 2));
      await text.focus();
      const [other] = (await f.ws.decisions.list()).filter(
        (decision) => decision.run_id === run.id && decision.task_key === 't2',
      );
      if (!other?.isApproval()) throw new Error('expected t2 to wait');
      await other.approve();
      await story.locator('.row[data-task="t2"][data-state="succeeded"]').waitFor();
      expect(await text.inputValue()).toBe('{\n  "command": "rm -rf ./dist/cache"\n}');
      expect(await text.evaluate((element) => element === document.activeElement)).toBe(true);
      expect(await row.locator('.edit-diff .diff-added').allTextContents()).toEqual([
        '+   "command": "rm -rf ./dist/cache"\n',
      ]);
      expect(await axeViolations(page)).toEqual([]);
      await saveScreenshot(page, 'inbox-story-edit.png');

      // Ctrl+Enter approves the edit; the story tells it, by name, and the edit is what ran.
      await text.press('Control+Enter');
      const edited = row.locator('.decision[data-outcome="edited"]');
      await edited.waitFor();
      expect(await edited.textContent()).toMatch(
        /edited by test member: command "rm -rf \.\/dist" → "rm -rf \.\/dist\/cache"$/,
      );
      expect(await f.ended(run.id)).toMatchObject({ state: 'completed', final_answer: 'tidied' });
      expect(f.executed).toContain('rm -rf ./dist/cache');
      expect(f.executed).not.toContain('rm -rf ./dist');
      await story.locator('.row[data-task="t1"][data-state="succeeded"]').waitFor();
    });

    it("keeps an editor opened before the run's feed caught up, drawing the row's decisions in place", async () => {
      const run = await f.ws.runs.create(
        scriptedRun('ask', [
          { tool_calls: [{ name: 'bash', input: { command: 'rm -rf ./tmp' } }] },
          { final: 'tidied' },
        ]),
      );
      await eventually(
        async () => (await f.ws.runs.run(run.id).task('t1')).state === 'needs_approval',
      );
      let held: HeldFeed | undefined;
      const page = await f.openSignedIn(
        `#/runs/${run.id}`,
        undefined,
        undefined,
        async (opened) => {
          held = await holdFeed(opened);
        },
      );
      const row = page.locator('.run-view .row[data-task="t1"]');
      await row.getByRole('button', { name: /^Edit input of bash rm -rf \.\/tmp/ }).click();
      const text = row.locator('textarea[name="tool-input"]');
      const edit = JSON.stringify({ command: 'rm -rf ./tmp/cache' }, null, 2);
      await text.fill(edit);
      // The story is drawn from its reads; the feed, held back, has brought no decision yet.
      expect(await row.locator('.decision').count()).toBe(0);
      held?.release();
      await row.locator('.decision[data-outcome="parked"]').waitFor();
      expect(await text.inputValue()).toBe(edit);
      expect(await text.evaluate((element) => element === document.activeElement)).toBe(true);
      await text.press('Control+Enter');
      await row.locator('.decision[data-outcome="edited"]').waitFor();
      expect(await f.ended(run.id)).toMatchObject({ state: 'completed' });
      expect(f.executed).toContain('rm -rf ./tmp/cache');
    });

    it('closes the editor with Escape, back on its button, and sends nothing for an unchanged input', async () => {
      const run = await f.ws.runs.create(
        scriptedRun('ask', [
          { tool_calls: [{ name: 'deploy', input: { target: 'staging' } }] },
          { final: 'deployed' },
        ]),
      );
      const page = await f.openSignedIn('#/');
      await page.locator(`.list [data-decision="${run.id}/t1"] .open`).click();
      const card = page.locator('.detail article');
      const open = card.getByRole('button', { name: /^Edit input of deploy/ });
      await open.click();
      expect(await open.getAttribute('aria-expanded')).toBe('true');
      await card.getByRole('button', { name: /^Approve with changes: deploy/ }).click();
      expect(await card.locator('.edit-error').textContent()).toBe(
        'Nothing changed: use Approve to approve the call as it is.',
      );
      await card.locator('textarea[name="tool-input"]').press('Escape');
      expect(await card.locator('.edit').isHidden()).toBe(true);
      expect(await open.evaluate((element) => element === document.activeElement)).toBe(true);
      // An approve would have moved it: it still waits, as the model composed it.
      expect(await f.ws.runs.run(run.id).task('t1')).toMatchObject({
        state: 'needs_approval',
        tool_input: { target: 'staging' },
      });
    });
  },
);
