import type { Workspace } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';
import { axeViolations, browserSkipReason } from '../support/browser.js';
import { eventually, scriptedRun } from '../support/kernel.js';
import { useInboxFixture } from './inbox-fixture.js';

/**
 * The inbox's keys where a person's focus is: they work from a tick box
 * clicked a moment ago, and an Enter that only ends a word being composed
 * (an input method's Enter), or one in an empty answer box, sends nothing.
 */
describe.skipIf(browserSkipReason !== null)(
  'the web inbox in headless Chromium: keys where the focus is',
  { timeout: 120_000 },
  () => {
    const f = useInboxFixture({ width: 1280, height: 800 });

    async function parked(ws: Workspace, runId: string, task: string) {
      const decision = await ws.decisions.get(runId, task);
      if (!decision?.isApproval()) throw new Error(`expected ${runId}/${task} to wait`);
      return decision;
    }

    const twoCalls = (label: string) =>
      f.ws.runs.create(
        scriptedRun('ask', [
          {
            tool_calls: [
              { name: 'bash', input: { command: `echo ${label}-one` } },
              { name: 'bash', input: { command: `echo ${label}-two` } },
            ],
          },
          { final: 'done' },
        ]),
      );

    it('moves and selects with j and x right after a tick box was clicked', async () => {
      const run = await twoCalls('ticked');
      const page = await f.openInbox();
      const tick = page.locator(`.list [data-decision="${run.id}/t2"] .tick`);
      await tick.check();
      expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).type)).toBe(
        'checkbox',
      );
      await page.keyboard.press('j');
      const open = page.locator('.list li.row[aria-current="true"]');
      await open.waitFor();
      expect(await page.locator('.detail article').count()).toBe(1);
      const key = await open.getAttribute('data-decision');
      await page.keyboard.press('x');
      expect(await page.locator(`.list [data-decision="${key}"] .tick`).isChecked()).toBe(
        key !== `${run.id}/t2`,
      );
      expect(await axeViolations(page)).toEqual([]);
      for (const task of ['t1', 't2']) {
        await (await parked(f.ws, run.id, task)).deny({ reason: 'enough' });
      }
    });

    it('approves only the call open when `a` went down: a held key repeats and decides nothing more', async () => {
      const run = await twoCalls('held');
      const page = await f.openInbox();
      const approves: string[] = [];
      page.on('request', (request) => {
        if (request.method() === 'POST' && /\/tasks\/[^/]+\/approve$/.test(request.url())) {
          approves.push(request.url());
        }
      });
      // Both rows read, so the next card is drawn the moment the first is approved.
      for (const task of ['t2', 't1']) {
        await page.locator(`.list [data-decision="${run.id}/${task}"] .open`).click();
        await page.locator(`.detail article[data-decision="${run.id}/${task}"]`).waitFor();
      }
      await page.locator('body').click({ position: { x: 5, y: 5 } });
      await page.keyboard.down('a');
      await page.locator(`.list [data-decision="${run.id}/t1"]`).waitFor({ state: 'detached' });
      await page.locator(`.detail article[data-decision="${run.id}/t2"]`).waitFor();
      // Still held, the key repeats (a keydown with \`repeat\`) over a card never read.
      await page.keyboard.down('a');
      await page.keyboard.down('a');
      await page.keyboard.up('a');
      await page.keyboard.press('d');
      await page.keyboard.type('read, and not this one');
      await page.keyboard.press('Enter');
      await page.locator(`.list [data-decision="${run.id}/t2"]`).waitFor({ state: 'detached' });
      expect(approves).toHaveLength(1);
      const task = await f.ws.runs.run(run.id).task('t2');
      expect(task.error?.detail).toBe('read, and not this one');
    });

    it('approves only the call open at a double press of `a`: the next card takes no `a` as it is drawn', async () => {
      const run = await twoCalls('double');
      const page = await f.openInbox();
      const approves: string[] = [];
      page.on('request', (request) => {
        if (request.method() === 'POST' && /\/tasks\/[^/]+\/approve$/.test(request.url())) {
          approves.push(request.url());
        }
      });
      for (const task of ['t2', 't1']) {
        await page.locator(`.list [data-decision="${run.id}/${task}"] .open`).click();
        await page.locator(`.detail article[data-decision="${run.id}/${task}"]`).waitFor();
      }
      await page.locator('body').click({ position: { x: 5, y: 5 } });
      // The second press of a double press lands as the next card is drawn: a keydown sent
      // the moment it is in the page, so no timing of this machine decides when it comes.
      await page.evaluate((key) => {
        const pane = document.querySelector('.detail') as HTMLElement;
        const observer = new MutationObserver(() => {
          if (!pane.querySelector(`article[data-decision="${key}"]`)) return;
          observer.disconnect();
          document.dispatchEvent(new KeyboardEvent('keydown', { key: 'a', bubbles: true }));
        });
        observer.observe(pane, { childList: true, subtree: true });
      }, `${run.id}/t2`);
      await page.keyboard.press('a');
      const card = page.locator(`.detail article[data-decision="${run.id}/t2"]`);
      await card
        .locator('.message')
        .filter({
          hasText: 'Not approved: this call opened just now. Press a again to approve it.',
        })
        .waitFor();
      expect(approves).toHaveLength(1);
      expect((await f.ws.runs.run(run.id).task('t2')).state).toBe('needs_approval');

      // Once the card has been in view a moment, `a` approves it.
      await page.locator('.detail:not([data-keys-paused])').waitFor();
      await page.keyboard.press('a');
      await page.locator(`.list [data-decision="${run.id}/t2"]`).waitFor({ state: 'detached' });
      expect(approves).toHaveLength(2);
    });

    it('keeps the keyboard in the pane when its card goes: after Enter on Approve, Tab reaches the next card', async () => {
      const run = await twoCalls('focus');
      const page = await f.openInbox();
      await page.locator(`.list [data-decision="${run.id}/t1"] .open`).click();
      const card = page.locator(`.detail article[data-decision="${run.id}/t1"]`);
      await card.locator('[data-action="approve"]').focus();
      await page.keyboard.press('Enter');
      await page.locator(`.list [data-decision="${run.id}/t1"]`).waitFor({ state: 'detached' });
      await page.locator(`.detail article[data-decision="${run.id}/t2"]`).waitFor();
      const inPane = () =>
        page.evaluate(() => document.querySelector('.detail')?.contains(document.activeElement));
      expect(await inPane()).toBe(true);
      await page.keyboard.press('Tab');
      expect(await inPane()).toBe(true);
      expect(
        await page.evaluate(() => document.activeElement?.closest('article')?.dataset.decision),
      ).toBe(`${run.id}/t2`);
      await (await parked(f.ws, run.id, 't2')).deny({ reason: 'enough' });
    });

    it('ticks nothing with x while the filter hides the open row: a bulk verb decides only rows in view', async () => {
      const run = await twoCalls('hidden');
      const page = await f.openInbox();
      const row = (task: string) => page.locator(`.list [data-decision="${run.id}/${task}"]`);
      await row('t1').locator('.open').click();
      await page.locator(`.detail article[data-decision="${run.id}/t1"]`).waitFor();
      await page.locator('input[name="filter"]').fill('hidden-two');
      expect(await row('t1').isHidden()).toBe(true);
      await page.locator('body').click({ position: { x: 5, y: 5 } });
      await page.keyboard.press('x');
      expect(await page.locator('.bulk').isHidden()).toBe(true);
      await page.locator('input[name="filter"]').fill('');
      expect(await row('t1').locator('.tick').isChecked()).toBe(false);
      for (const task of ['t1', 't2']) {
        await (await parked(f.ws, run.id, task)).deny({ reason: 'enough' });
      }
    });

    it("sends no deny from a run story's reason on an input method's Enter, only on a real one", async () => {
      const run = await twoCalls('composed');
      await eventually(
        async () => (await f.ws.runs.run(run.id).task('t2')).state === 'needs_approval',
      );
      const page = await f.openSignedIn(`#/runs/${run.id}`);
      const reason = page.locator('.row[data-task="t1"] input[name="reason"]');
      await reason.fill('not y');
      // The Enter that picks a word from an input method's list: the reason is not done.
      const sent = await reason.evaluate((input) => {
        input.dispatchEvent(
          new KeyboardEvent('keydown', { key: 'Enter', isComposing: true, bubbles: true }),
        );
        return (input as HTMLInputElement).disabled;
      });
      expect(sent).toBe(false);
      await reason.fill('not yet');
      await reason.press('Enter');
      const denied = await eventually(async () => {
        const task = await f.ws.runs.run(run.id).task('t1');
        return task.state !== 'needs_approval' && task;
      });
      expect(denied.error?.detail).toBe('not yet');
      await (await parked(f.ws, run.id, 't2')).deny({ reason: 'enough' });
    });

    it('answers no question with nothing: an Enter in an empty answer box asks for the answer first', async () => {
      const run = await f.ws.runs.create(
        scriptedRun('ask', [
          { tool_calls: [{ name: 'ask', input: { prompt: 'Which branch?' } }] },
          { final: 'done' },
        ]),
      );
      const page = await f.openInbox();
      await page.locator(`.list [data-decision="${run.id}/t1"] .open`).click();
      const card = page.locator(`.detail article[data-decision="${run.id}/t1"]`);
      const answer = card.getByRole('textbox', { name: /^answer to/ });
      await answer.fill('   ');
      await answer.press('Enter');
      expect(await card.locator('.message').textContent()).toBe(
        'Type an answer first, or Decline the question.',
      );
      expect(await answer.isEnabled()).toBe(true);
      expect(await axeViolations(page)).toEqual([]);
      await answer.fill('main');
      await answer.press('Enter');
      await page.locator(`.list [data-decision="${run.id}/t1"]`).waitFor({ state: 'detached' });
      expect((await f.ws.runs.run(run.id).task('t1')).result).toBe('main');
    });
  },
);
