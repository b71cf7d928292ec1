import { createClient } from '@airlock/sdk';
import { createCredential } from '@airlock/server';
import { describe, expect, it } from 'vitest';
import { browserSkipReason } from '../support/browser.js';
import { eventually, scriptedRun } from '../support/kernel.js';
import { holdFeed } from './held-feed.js';
import { useInboxFixture } from './inbox-fixture.js';

/*
 * Two members on the same card: Ana decides a call while the signed-in member's page has not
 * heard of it yet (its feed held back), and the member then sends the other verb. The kernel
 * refuses it (task_not_waiting) and the card went away with no word, as if it had been done: a
 * member who pressed Deny on a call Ana had approved was left believing it did not run.
 */
describe.skipIf(browserSkipReason !== null)(
  'the web inbox in headless Chromium: a verb that comes after another member decided',
  { timeout: 120_000 },
  () => {
    const f = useInboxFixture({ width: 1280, height: 800 });

    it('says the verb was not done, and what the other member did first', async () => {
      const ana = await createCredential(f.kernel.airlock.store, {
        workspaceId: f.kernel.workspace.id,
        kind: 'member',
        label: 'Ana Lima',
      });
      const anaWs = createClient({ url: f.kernel.url, token: ana.token }).workspace(
        f.kernel.workspace.id,
      );
      const run = await f.ws.runs.create(
        scriptedRun('ask', [
          {
            tool_calls: [
              { name: 'bash', input: { command: 'rm -rf build' } },
              { name: 'bash', input: { command: 'ls build' } },
              // Still waiting at the end: the run goes on running, and takes verbs.
              { name: 'bash', input: { command: 'du -sh build' } },
            ],
          },
          { final: 'done' },
        ]),
      );
      await eventually(
        async () => (await f.ws.runs.run(run.id).task('t3')).state === 'needs_approval',
      );
      // The page hears nothing of Ana's verbs: its feed is held back.
      const page = await f.openSignedIn('#/', undefined, undefined, async (opened) => {
        await holdFeed(opened);
      });
      const key = (task: string) => `${run.id}/${task}`;
      const card = (task: string) => page.locator(`.detail article[data-decision="${key(task)}"]`);
      const after = (task: string) => page.locator(`.afters .after[data-after="${key(task)}"]`);
      await page.locator(`.list [data-decision="${key('t3')}"]`).waitFor();

      // Ana approves t1; the member, reading it still, denies it.
      await page.locator(`.list [data-decision="${key('t1')}"] .open`).click();
      await card('t1').locator(':scope > .actions').waitFor();
      const t1 = await anaWs.decisions.get(run.id, 't1');
      if (!t1?.isApproval()) throw new Error('t1 does not wait');
      await t1.approve();
      await card('t1').locator('input[name="reason"]').fill('not this one');
      await card('t1').locator('[data-action="deny"]').click();
      await after('t1').waitFor();
      expect(await after('t1').textContent()).toMatch(
        /^Not denied by you: the call had stopped waiting: it was approved by Ana Lima first, and (waits for an executor|is running|ran)\. /,
      );
      await expect
        .poll(() => page.locator('.afters .announce').textContent(), { timeout: 30_000 })
        .toMatch(/^Not denied by you: /);

      // Ana denies t2; the member approves it.
      await page.locator(`.list [data-decision="${key('t2')}"] .open`).click();
      await card('t2').locator(':scope > .actions').waitFor();
      const t2 = await anaWs.decisions.get(run.id, 't2');
      if (!t2?.isApproval()) throw new Error('t2 does not wait');
      await t2.deny({ reason: 'no' });
      await card('t2').locator('[data-action="approve"]').click();
      await after('t2').waitFor();
      expect(await after('t2').textContent()).toMatch(
        /^Not approved by you: the call had stopped waiting: it was denied by Ana Lima first\. /,
      );
      expect(await page.locator('.list li.row').count()).toBe(1);
      // The browser logs each refused verb; nothing else went wrong.
      expect(f.consoleErrors.splice(0)).toEqual([
        'Failed to load resource: the server responded with a status of 409 (Conflict)',
        'Failed to load resource: the server responded with a status of 409 (Conflict)',
      ]);
      const t3 = await f.ws.decisions.get(run.id, 't3');
      if (t3?.isApproval()) await t3.deny({ reason: 'done' });
    });

    it('says it per call of a bulk deny too: one approved by Bo first is not said as denied', async () => {
      const bo = await createCredential(f.kernel.airlock.store, {
        workspaceId: f.kernel.workspace.id,
        kind: 'member',
        label: 'Bo Chen',
      });
      const boWs = createClient({ url: f.kernel.url, token: bo.token }).workspace(
        f.kernel.workspace.id,
      );
      const run = await f.ws.runs.create(
        scriptedRun('ask', [
          {
            tool_calls: [
              { name: 'bash', input: { command: 'rm -rf dist' } },
              { name: 'bash', input: { command: 'ls dist' } },
            ],
          },
          { final: 'done' },
        ]),
      );
      await eventually(
        async () => (await f.ws.runs.run(run.id).task('t2')).state === 'needs_approval',
      );
      const page = await f.openSignedIn('#/', undefined, undefined, async (opened) => {
        await holdFeed(opened);
      });
      const key = (task: string) => `${run.id}/${task}`;
      const row = (task: string) => page.locator(`.list [data-decision="${key(task)}"]`);
      await row('t2').waitFor();
      // Read as they are ticked: the bulk verb is bound to the versions read then.
      await row('t1').locator('.tick').check();
      await row('t2').locator('.tick').check();
      await page.locator('.bulk-count').filter({ hasText: '2 selected' }).waitFor();
      const t1 = await boWs.decisions.get(run.id, 't1');
      if (!t1?.isApproval()) throw new Error('t1 does not wait');
      await t1.approve();
      await page.locator('.bulk button.deny').click();
      const result = (task: string) =>
        page.locator(`.bulk-results li[data-decision="${key(task)}"]`);
      await result('t1').waitFor();
      expect(await result('t1').getAttribute('data-result')).toBe('elsewhere');
      expect(await result('t1').textContent()).toMatch(
        /: Not denied by you: the call had stopped waiting: it was approved by Bo Chen first, and (waits for an executor|is running|ran)\.$/,
      );
      expect(await result('t2').getAttribute('data-result')).toBe('denied');
      expect(await page.locator('.bulk-message').textContent()).toBe(
        '1 denied, 1 decided elsewhere first',
      );
      expect(f.consoleErrors.splice(0)).toEqual([
        'Failed to load resource: the server responded with a status of 409 (Conflict)',
      ]);
    });
  },
);
