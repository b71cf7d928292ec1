import { createClient } from '@airlock/sdk';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, browserSkipReason, saveScreenshot } from '../support/browser.js';
import { eventually, scriptedRun } from '../support/kernel.js';
import { holdRowReads } from './held-reads.js';
import { parkedWrites, secondLeadWithPolicy, useInboxFixture } from './inbox-fixture.js';

/**
 * The waiting list through a full day: a large backlog, every call reachable,
 * and the feed's events applied in place (a park drawn from its events, an
 * approval toward a quorum counted) without asking the kernel for the row.
 */
describe.skipIf(browserSkipReason !== null)(
  'the inbox for a full day of approvals: the waiting list, live',
  { timeout: 240_000 },
  () => {
    const f = useInboxFixture({ width: 1280, height: 800 });
    let page: Page;
    const writes = (label: string, calls: number) => parkedWrites(f.ws, label, calls);
    const row = (key: string) => page.locator(`.list [data-decision="${key}"]`);
    const waiting = async () => (await f.ws.decisions.page({ limit: 1 })).total;
    const detail = () => page.locator('.detail article');

    it('reaches every one of 1000 waiting calls, shows the newest first, and counts them in the title', async () => {
      for (let i = 0; i < 20; i += 1) await writes(`batch-${i}`, 50);
      await eventually(async () => (await waiting()) === 1000, { timeoutMs: 60_000 });
      page = await f.openInbox();
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
      const latest = await f.ws.runs.create(
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

    it('shows a park’s quorum from its own events and counts an approval in place, reading nothing', async () => {
      const ana = await secondLeadWithPolicy(f, 'Ana Lima', () => [
        { tool: 'release', approvers: ['group:leads'], required: 2 },
      ]);
      page = await f.openInbox();
      const asked: string[] = [];
      const onRequest = (request: { url(): string }) => {
        if (request.url().startsWith(f.kernel.url)) asked.push(request.url());
      };
      page.on('request', onRequest);
      const run = await f.ws.runs.create(
        scriptedRun('ask', [
          { tool_calls: [{ name: 'release', input: { version: '5.0.0' } }] },
          { final: 'released' },
        ]),
      );
      const parked = row(`${run.id}/t1`);
      const count = parked.locator('.row-approvals');
      try {
        // The park's event says the policy asks two approvals: no read of the row.
        await count.filter({ hasText: '0 of 2 approvals' }).waitFor();
        expect(asked).toEqual([]);
        // Another lead approves elsewhere: the approval's event counts it in place.
        const elsewhere = await createClient({ url: f.kernel.url, token: ana.token })
          .workspace(f.kernel.workspace.id)
          .decisions.get(run.id, 't1');
        if (!elsewhere?.isApproval()) throw new Error('expected the release to wait');
        await elsewhere.approve();
        await count.filter({ hasText: '1 of 2 approvals' }).waitFor();
        expect(asked).toEqual([]);
      } finally {
        page.off('request', onRequest);
      }
      expect(await axeViolations(page)).toEqual([]);
      // Opened, the row is read: its card names who approved.
      await parked.locator('.open').click();
      await detail()
        .locator('.approvals')
        .filter({ hasText: '1 of 2 approvals (Ana Lima)' })
        .waitFor();
      // The signed-in member's approval completes the quorum: the row leaves.
      await detail()
        .getByRole('button', { name: /^Approve release/ })
        .click();
      await parked.waitFor({ state: 'detached' });
      expect((await f.ws.runs.run(run.id).task('t1')).state).toBe('runnable');
    });

    it('never lets a read that left before an approval undo the count the approval’s event drew', async () => {
      const bo = await secondLeadWithPolicy(f, 'Bo Chen', () => [
        { tool: 'release', approvers: ['group:leads'], required: 2 },
      ]);
      page = await f.openInbox();
      const run = await f.ws.runs.create(
        scriptedRun('ask', [
          { tool_calls: [{ name: 'release', input: { version: '6.0.0' } }] },
          { final: 'released' },
        ]),
      );
      const parked = row(`${run.id}/t1`);
      const count = parked.locator('.row-approvals');
      await count.filter({ hasText: '0 of 2 approvals' }).waitFor();
      // Every read of a row is answered by the kernel at once, but reaches the page only when let go.
      const reads = await holdRowReads(page);
      await parked.locator('.open').click();
      await eventually(() => reads.held.length === 1, { what: 'the read of the opened row' });
      // Bo approves after that read was answered: it says 0 of 2, the approval's event 1 of 2.
      const elsewhere = await createClient({ url: f.kernel.url, token: bo.token })
        .workspace(f.kernel.workspace.id)
        .decisions.get(run.id, 't1');
      if (!elsewhere?.isApproval()) throw new Error('expected the release to wait');
      await elsewhere.approve();
      await count.filter({ hasText: '1 of 2 approvals' }).waitFor();
      // The open row is read afresh; the older answer arrives first and is not drawn.
      await eventually(() => reads.held.length === 2, { what: 'a fresh read of the open row' });
      reads.held[0]?.();
      await eventually(() => reads.delivered() === 1, { what: 'the older answer delivered' });
      reads.held[1]?.();
      await detail()
        .locator('.approvals')
        .filter({ hasText: '1 of 2 approvals (Bo Chen)' })
        .waitFor();
      expect(await count.textContent()).toBe('1 of 2 approvals');
      await reads.finish();
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
  },
);
