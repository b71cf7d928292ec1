import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, browserSkipReason, saveScreenshot } from '../support/browser.js';
import { eventually, scriptedRun } from '../support/kernel.js';
import { parkedWrites, useInboxFixture } from './inbox-fixture.js';

/** Acting on a full day of approvals: bulk actions, the keyboard, diffs, a phone, notifications. */
describe.skipIf(browserSkipReason !== null)(
  'the inbox for a full day of approvals: acting on it',
  { timeout: 240_000 },
  () => {
    const f = useInboxFixture({ width: 1280, height: 800 });
    let page: Page;
    const writes = (label: string, calls: number) => parkedWrites(f.ws, label, calls);
    const row = (key: string) => page.locator(`.list [data-decision="${key}"]`);
    const detail = () => page.locator('.detail article');
    const noHorizontalScroll = () =>
      page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

    beforeAll(async () => {
      page = await f.openInbox();
    }, 120_000);

    it('approves several selected calls at once, each bound to the version shown', async () => {
      const run = await writes('bulk', 3);
      for (const key of ['t1', 't2', 't3']) await row(`${run.id}/${key}`).waitFor();
      // The three calls of one round are grouped.
      const group = page.locator(`.group[data-group="${run.id}#1"]`);
      expect(await group.locator('li.row').count()).toBe(3);
      expect(await group.locator('.group-head').isVisible()).toBe(true);
      for (const key of ['t1', 't2', 't3']) await row(`${run.id}/${key}`).locator('.tick').check();
      await page.locator('.bulk .bulk-count').filter({ hasText: '3 selected' }).waitFor();
      expect(await axeViolations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Approve selected' }).click();
      for (const key of ['t1', 't2', 't3'])
        await row(`${run.id}/${key}`).waitFor({ state: 'detached' });
      expect(await page.locator('.bulk-message').textContent()).toBe('3 approved and running');
      const rows = await f.ws.runs.run(run.id).tasks();
      for (const task of rows) expect(task.decided_by).toMatch(/^member:/);
      expect(rows.every((task) => task.state !== 'needs_approval')).toBe(true);
    });

    it('is driven by the keyboard: j/k move, a approves, d denies with a reason, / filters, ? helps', async () => {
      const run = await writes('keys', 3);
      await row(`${run.id}/t3`).waitFor();
      await page.locator('input[name="filter"]').fill('keys/');
      await page.locator('body').click({ position: { x: 5, y: 5 } });
      await page.keyboard.press('j');
      const first = await page
        .locator('.list li.row[aria-current="true"]')
        .getAttribute('data-decision');
      await page.keyboard.press('j');
      const second = await page
        .locator('.list li.row[aria-current="true"]')
        .getAttribute('data-decision');
      expect(second).not.toBe(first);
      await page.keyboard.press('k');
      expect(
        await page.locator('.list li.row[aria-current="true"]').getAttribute('data-decision'),
      ).toBe(first);
      await detail().waitFor();
      // Moving focus off the filter box, `a` approves the open call.
      await page.keyboard.press('a');
      await row(first!).waitFor({ state: 'detached' });
      await page.locator(`.after[data-after="${first}"]`).waitFor();
      // `d` puts the cursor in the deny reason; Enter sends it.
      const denied = await page
        .locator('.list li.row[aria-current="true"]')
        .getAttribute('data-decision');
      await page.keyboard.press('d');
      await page.keyboard.type('not on a Friday');
      await page.keyboard.press('Enter');
      await row(denied!).waitFor({ state: 'detached' });
      const [, deniedKey] = denied!.split('/');
      const task = await f.ws.runs.run(run.id).task(deniedKey!);
      expect(task.error?.detail).toBe('not on a Friday');
      await page.keyboard.press('/');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe(
        'filter',
      );
      await page.locator('input[name="filter"]').fill('');
      await page.locator('body').click({ position: { x: 5, y: 5 } });
      await page.keyboard.press('?');
      expect(await page.locator('.key-help').isVisible()).toBe(true);
      expect(await axeViolations(page)).toEqual([]);
      await page.keyboard.press('?');
    });

    it('shows an edit as a diff and a write with its real line breaks', async () => {
      // A fresh page: one page of rows, not the thousand the first test scrolled through.
      page = await f.openInbox();
      const run = await f.ws.runs.create(
        scriptedRun('ask', [
          {
            tool_calls: [
              {
                name: 'Edit',
                input: {
                  file_path: 'src/config.ts',
                  old_string: 'export const retries = 3;\nexport const region = "eu";',
                  new_string: 'export const retries = 5;\nexport const region = "eu";',
                },
              },
            ],
          },
          { final: 'edited' },
        ]),
      );
      await row(`${run.id}/t1`).locator('.open').click();
      const card = detail();
      await card.locator('.diff').waitFor();
      expect(await card.locator('.diff-removed').allTextContents()).toEqual([
        '- export const retries = 3;\n',
      ]);
      expect(await card.locator('.diff-added').allTextContents()).toEqual([
        '+ export const retries = 5;\n',
      ]);
      expect(await card.locator('.diff-kept').allTextContents()).toEqual([
        '  export const region = "eu";\n',
      ]);
      expect(await axeViolations(page)).toEqual([]);
      await saveScreenshot(page, 'inbox-diff.png');

      const write = await writes('readable', 1);
      await row(`${write.id}/t1`).locator('.open').click();
      const content = detail().locator('.input dd pre').nth(1);
      expect(await content.textContent()).toBe('line one\nline two of 0\n');
    });

    it('works at 390 px wide on every page without horizontal scroll', async () => {
      const run = await writes('phone', 2);
      page = await f.openInbox({ width: 390, height: 844 });
      await row(`${run.id}/t1`).locator('.open').click();
      await detail().waitFor();
      expect(await noHorizontalScroll()).toBe(true);
      expect(await axeViolations(page)).toEqual([]);
      await saveScreenshot(page, 'inbox-phone.png');
      await page.goto(`${f.kernel.url}/#/runs/${run.id}`);
      await page.locator('.run-summary[data-state="running"]').waitFor();
      expect(await noHorizontalScroll()).toBe(true);
      expect(await axeViolations(page)).toEqual([]);
      await page.goto(`${f.kernel.url}/#/recent`);
      await page.locator('.recent-status').filter({ hasText: 'by people' }).waitFor();
      expect(await noHorizontalScroll()).toBe(true);
      expect(await axeViolations(page)).toEqual([]);
      const signIn = await f.browser.newPage({ viewport: { width: 390, height: 844 } });
      await signIn.goto(f.kernel.url);
      await signIn.getByLabel('Workspace id').waitFor();
      expect(
        await signIn.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
      ).toBe(true);
      await signIn.close();
    });

    it('asks once for desktop notifications on a click, then notifies of an arrival while the tab is away', async () => {
      page = await f.openSignedIn('#/', { width: 1280, height: 800 }, () => {
        // The browser's Notification, recorded: what was asked and what was shown.
        const shown: string[] = [];
        let permission = 'default';
        let asked = 0;
        class Recorded {
          static get permission() {
            return permission;
          }
          static async requestPermission() {
            asked += 1;
            permission = 'granted';
            return permission;
          }
          constructor(title: string, options: { body?: string }) {
            shown.push(`${title}: ${options.body ?? ''}`);
          }
        }
        Object.assign(globalThis, {
          Notification: Recorded,
          __shown: shown,
          __asked: () => asked,
        });
        // The tab is in the background.
        document.hasFocus = () => false;
      });
      await page.locator('.status[data-status="live"]').waitFor();
      await page.getByRole('button', { name: 'Desktop notifications' }).click();
      await page
        .getByRole('button', { name: 'Desktop notifications' })
        .waitFor({ state: 'hidden' });
      const run = await writes('notify', 1);
      await row(`${run.id}/t1`).waitFor();
      const shown = await page.evaluate(
        () => (globalThis as unknown as { __shown: string[] }).__shown,
      );
      expect(shown).toHaveLength(1);
      expect(shown[0]).toMatch(/^A call waits for you: write .*notify\/file-0\.txt/);
      expect(
        await page.evaluate(() => (globalThis as unknown as { __asked(): number }).__asked()),
      ).toBe(1);
      // Asked once: a reload does not offer to ask again.
      await page.reload();
      await page.locator('.status[data-status="live"]').waitFor();
      expect(await page.getByRole('button', { name: 'Desktop notifications' }).isHidden()).toBe(
        true,
      );
    });

    it('approves from the run story, which shows the goal and who decided', async () => {
      page = await f.openInbox();
      const run = await f.ws.runs.create({
        ...scriptedRun('ask', [
          { tool_calls: [{ name: 'deploy', input: { target: 'staging' } }] },
          { final: 'Staging is deployed.' },
        ]),
        input: 'Deploy the release to staging',
      });
      await eventually(
        async () => (await f.ws.runs.run(run.id).task('t1')).state === 'needs_approval',
      );
      await page.goto(`${f.kernel.url}/#/runs/${run.id}`);
      const story = page.locator('.run-view');
      await story.locator('.goal').filter({ hasText: 'Deploy the release to staging' }).waitFor();
      await story.getByRole('button', { name: 'Approve deploy (task t1)' }).click();
      const decided = story.locator('.row[data-task="t1"] .decision[data-outcome="approved"]');
      await decided.waitFor();
      expect(await decided.textContent()).toMatch(/approved by test member$/);
      expect(await axeViolations(page)).toEqual([]);
    });
  },
);
