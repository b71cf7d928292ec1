import { createClient, type Workspace } from '@airlock/sdk';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  axeViolations,
  browserSkipReason,
  CHROMIUM,
  collectConsoleErrors,
  LAUNCH_ARGS,
  mountInbox,
  saveScreenshot,
} from '../support/browser.js';
import { eventually, scriptedRun, startTestKernel, type TestKernel } from '../support/kernel.js';
import { ensureInboxBuilt } from './inbox-build.js';

/** A full day of approvals: a large backlog, the keyboard, bulk actions, diffs, a phone. */
describe.skipIf(browserSkipReason !== null)(
  'the inbox for a full day of approvals',
  { timeout: 240_000 },
  () => {
    let kernel: TestKernel;
    let browser: Browser;
    let page: Page;
    let ws: Workspace;
    let consoleErrors: string[] = [];

    /** One run of `calls` write calls in one round, each parked by mode ask. */
    const writes = (label: string, calls: number) =>
      ws.runs.create(
        scriptedRun('ask', [
          {
            tool_calls: Array.from({ length: calls }, (_, i) => ({
              name: 'write',
              input: { path: `${label}/file-${i}.txt`, content: `line one\nline two of ${i}\n` },
            })),
          },
          { final: 'written' },
        ]),
      );
    const waiting = async () => (await ws.decisions.page({ limit: 1 })).total;
    const row = (key: string) => page.locator(`.list [data-decision="${key}"]`);
    const detail = () => page.locator('.detail article');
    const noHorizontalScroll = () =>
      page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

    async function openInbox(width = 1280, height = 800): Promise<void> {
      await page?.close();
      page = await browser.newPage({ viewport: { width, height } });
      consoleErrors = collectConsoleErrors(page);
      await page.addInitScript(
        (session) => {
          sessionStorage.setItem('airlock.inbox.session', JSON.stringify(session));
        },
        {
          url: kernel.url,
          workspaceId: kernel.workspace.id,
          token: kernel.workspace.tokens.member,
        },
      );
      await page.goto(kernel.url);
      await page.locator('.status[data-status="live"]').waitFor();
    }

    beforeAll(async () => {
      await ensureInboxBuilt();
      kernel = await startTestKernel();
      mountInbox(kernel);
      ws = createClient({ url: kernel.url, token: kernel.workspace.tokens.member }).workspace(
        kernel.workspace.id,
      );
      browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
    }, 120_000);
    afterEach(() => {
      expect(consoleErrors.splice(0)).toEqual([]);
    });
    afterAll(async () => {
      await browser?.close();
      await kernel?.close();
    });

    it('reaches every one of 1000 waiting calls, shows the newest first, and counts them in the title', async () => {
      for (let i = 0; i < 20; i += 1) await writes(`batch-${i}`, 50);
      await eventually(async () => (await waiting()) === 1000, { timeoutMs: 60_000 });
      await openInbox();
      await page.locator('.count').filter({ hasText: '1000 waiting' }).waitFor();
      expect(await page.title()).toBe('(1000) Airlock inbox');
      // Dense: at least eight rows on a 1280x800 screen.
      const inView = await page.evaluate(
        () =>
          [...document.querySelectorAll('.list li.row')].filter((row) => {
            const box = row.getBoundingClientRect();
            return box.top >= 0 && box.bottom <= window.innerHeight;
          }).length,
      );
      expect(inView).toBeGreaterThanOrEqual(8);

      // A call parked now lands on top, in view, and the title counts it.
      const latest = await ws.runs.create(
        scriptedRun('ask', [
          { tool_calls: [{ name: 'deploy', input: { target: 'production' } }] },
          { final: 'deployed' },
        ]),
      );
      const newest = row(`${latest.id}/t1`);
      await newest.waitFor();
      expect(await page.locator('.list li.row').first().getAttribute('data-decision')).toBe(
        `${latest.id}/t1`,
      );
      expect(await newest.isVisible()).toBe(true);
      await eventually(async () => (await page.title()) === '(1001) Airlock inbox');
      expect(await axeViolations(page)).toEqual([]);
      await saveScreenshot(page, 'inbox-backlog.png');

      // Every waiting call is reachable: scrolling to the end loads the next page until none is left.
      await eventually(
        async () => {
          await page
            .locator('.more')
            .evaluate((more) => more.scrollIntoView())
            .catch(() => {});
          return (
            (await page.locator('.list li.row').count()) === 1001 &&
            (await page.locator('.more').isHidden())
          );
        },
        { timeoutMs: 60_000, what: 'every waiting call on the page' },
      );
      const keys = await page
        .locator('.list li.row')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-decision')));
      expect(new Set(keys).size).toBe(1001);
      expect(await page.locator('.count').textContent()).toBe('1001 waiting');
    });

    it('applies feed events in place: a park is drawn from its events and read only when opened or ticked', async () => {
      const reads: string[] = [];
      const onRequest = (request: { url(): string }) => {
        const url = request.url();
        if (url.includes('/trpc/')) reads.push(url);
      };
      page.on('request', onRequest);
      const before = await waiting();
      const runs = [];
      for (let i = 0; i < 5; i += 1) runs.push(await writes(`live-${i}`, 1));
      for (const run of runs) await row(`${run.id}/t1`).waitFor();
      await page
        .locator('.count')
        .filter({ hasText: `${before + 5} waiting` })
        .waitFor();
      // Five parks cost the kernel nothing but their feed frames: no list, no row read.
      expect(reads).toEqual([]);
      const drawn = await row(`${runs[0]!.id}/t1`).locator('.summary').textContent();
      expect(drawn).toMatch(/^write .*"live-0\/file-0\.txt"/);

      // Opening a row reads it alone; the pane says so until the read answers (held here).
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      await page.route('**/trpc/tasks.get**', async (route) => {
        await held;
        await route.continue();
      });
      await row(`${runs[0]!.id}/t1`).locator('.open').click();
      await page.locator('.detail').filter({ hasText: 'Reading this call…' }).waitFor();
      release();
      await detail().filter({ hasText: 'live-0/file-0.txt' }).waitFor();
      await page.unroute('**/trpc/tasks.get**');
      // The read draws the row again, showing what its events showed.
      expect(await row(`${runs[0]!.id}/t1`).locator('.summary').textContent()).toBe(drawn);
      expect(await row(`${runs[0]!.id}/t1`).getAttribute('aria-current')).toBe('true');
      expect(reads.filter((url) => url.includes('tasks.get')).length).toBe(1);

      // Ticking a row reads it too (the bulk verb is bound to the version seen then); it stays ticked.
      const ticked = row(`${runs[1]!.id}/t1`);
      await ticked.locator('.tick').check();
      await eventually(async () => reads.filter((url) => url.includes('tasks.get')).length === 2);
      expect(await ticked.locator('.tick').isChecked()).toBe(true);
      await page.getByRole('button', { name: 'Clear selection' }).click();
      page.off('request', onRequest);
      expect(reads.filter((url) => url.includes('decisions.list'))).toEqual([]);
      expect(await page.locator('.count').textContent()).toContain(`${before + 5} waiting`);
    });

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
      const rows = await ws.runs.run(run.id).tasks();
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
      const task = await ws.runs.run(run.id).task(deniedKey!);
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

    it('filters a call that arrives while the filter is set, as it comes', async () => {
      await page.locator('input[name="filter"]').fill('wanted/');
      const other = await writes('elsewhere', 1);
      const matching = await writes('wanted', 1);
      await row(`${matching.id}/t1`).waitFor();
      await row(`${other.id}/t1`).waitFor({ state: 'attached' });
      expect(await row(`${other.id}/t1`).isHidden()).toBe(true);
      expect(await row(`${matching.id}/t1`).isVisible()).toBe(true);
      await page.locator('input[name="filter"]').fill('');
      expect(await row(`${other.id}/t1`).isVisible()).toBe(true);
    });

    it('shows an edit as a diff and a write with its real line breaks', async () => {
      // A fresh page: one page of rows, not the thousand the first test scrolled through.
      await openInbox();
      const run = await ws.runs.create(
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
      await openInbox(390, 844);
      await row(`${run.id}/t1`).locator('.open').click();
      await detail().waitFor();
      expect(await noHorizontalScroll()).toBe(true);
      expect(await axeViolations(page)).toEqual([]);
      await saveScreenshot(page, 'inbox-phone.png');
      await page.goto(`${kernel.url}/#/runs/${run.id}`);
      await page.locator('.run-summary[data-state="running"]').waitFor();
      expect(await noHorizontalScroll()).toBe(true);
      expect(await axeViolations(page)).toEqual([]);
      await page.goto(`${kernel.url}/#/recent`);
      await page.locator('.recent-status').filter({ hasText: 'by people' }).waitFor();
      expect(await noHorizontalScroll()).toBe(true);
      expect(await axeViolations(page)).toEqual([]);
      const signIn = await browser.newPage({ viewport: { width: 390, height: 844 } });
      await signIn.goto(kernel.url);
      await signIn.getByLabel('Workspace id').waitFor();
      expect(
        await signIn.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
      ).toBe(true);
      await signIn.close();
    });

    it('asks once for desktop notifications on a click, then notifies of an arrival while the tab is away', async () => {
      await page.close();
      page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      consoleErrors = collectConsoleErrors(page);
      await page.addInitScript(
        (session) => {
          sessionStorage.setItem('airlock.inbox.session', JSON.stringify(session));
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
        },
        {
          url: kernel.url,
          workspaceId: kernel.workspace.id,
          token: kernel.workspace.tokens.member,
        },
      );
      await page.goto(kernel.url);
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
      await openInbox();
      const run = await ws.runs.create({
        ...scriptedRun('ask', [
          { tool_calls: [{ name: 'deploy', input: { target: 'staging' } }] },
          { final: 'Staging is deployed.' },
        ]),
        input: 'Deploy the release to staging',
      });
      await eventually(
        async () => (await ws.runs.run(run.id).task('t1')).state === 'needs_approval',
      );
      await page.goto(`${kernel.url}/#/runs/${run.id}`);
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
