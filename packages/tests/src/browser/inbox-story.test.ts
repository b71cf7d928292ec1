import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, browserSkipReason, saveScreenshot } from '../support/browser.js';
import { eventually, scriptedRun } from '../support/kernel.js';
import { type InboxFixture, startInboxFixture } from './inbox-fixture.js';

/** What the inbox tells about runs: a run's story, live, and what the workspace decided. */
describe.skipIf(browserSkipReason !== null)(
  'the web inbox in headless Chromium: run stories and decisions',
  { timeout: 90_000 },
  () => {
    let f: InboxFixture;

    beforeAll(async () => {
      f = await startInboxFixture();
    });
    afterEach(() => {
      expect(f.consoleErrors.splice(0)).toEqual([]);
    });
    afterAll(async () => {
      await f?.close();
    });

    it('shows a run story that updates live while an executor commits', async () => {
      const run = await f.ws.runs.create(
        scriptedRun('ask', [
          { tool_calls: [{ name: 'bash', input: { command: 'make clean' } }] },
          { final: 'clean', expect: 'removed' },
        ]),
      );
      await eventually(
        async () => (await f.ws.runs.run(run.id).task('t1')).state === 'needs_approval',
      );
      await f.openSignedIn(`#/runs/${run.id}`);
      const story = f.page.locator('.run-view');
      const row = story.locator('.row[data-task="t1"]');
      await row.locator('.decision[data-outcome="parked"]').waitFor();
      expect(await row.getAttribute('data-state')).toBe('needs_approval');
      expect(await row.textContent()).toContain('parked by mode ask');

      const [parked] = (await f.ws.decisions.list()).filter((d) => d.run_id === run.id);
      if (!parked?.isApproval()) throw new Error('expected a parked call');
      await parked.approve();
      // No reload: the feed brings the approval, the executor's commit and the run's end.
      await story.locator('.row[data-task="t1"][data-state="succeeded"]').waitFor();
      await story.locator('.run-summary[data-state="completed"]').waitFor();
      expect(await row.textContent()).toContain('The model read: removed');
      expect(await story.locator('.goal').textContent()).toBe('do the thing');
      expect(await story.locator('.final-answer').textContent()).toBe('Final answer: clean');
      expect(await axeViolations(f.page)).toEqual([]);
      await saveScreenshot(f.page, 'inbox-run.png');
    });

    it('lists what was decided in the last day, filterable by run, tool, outcome and person', async () => {
      // A rule grants one call and parks another, which this member approves; a third is denied.
      const ruled = await f.ws.runs.create(
        scriptedRun(
          'rules',
          [
            {
              tool_calls: [
                { name: 'bash', input: { command: 'ls -la' } },
                { name: 'publish', input: { package: '@acme/app', tag: 'next' } },
              ],
            },
            { final: 'listed' },
          ],
          [
            { tool: 'bash', path: 'command', match: 'ls*', verdict: 'allow' },
            { tool: 'publish', verdict: 'ask' },
          ],
        ),
      );
      const held = await f.ws.runs.create(
        scriptedRun('ask', [
          { tool_calls: [{ name: 'publish', input: { package: '@acme/app', tag: 'latest' } }] },
          { final: 'held back' },
        ]),
      );
      const waiting = await eventually(async () => {
        const found = (await f.ws.decisions.list()).filter(
          (d) => d.run_id === ruled.id || d.run_id === held.id,
        );
        return found.length === 2 && found;
      });
      for (const decision of waiting) {
        if (!decision.isApproval()) throw new Error('expected parked calls');
        if (decision.run_id === ruled.id) await decision.approve();
        else await decision.deny({ reason: 'wait for the release review' });
      }
      await f.page.goto(`${f.kernel.url}/#/recent`);
      const view = f.page.locator('.recent-view');
      await view
        .locator('.recent-status')
        .filter({ hasText: 'decision(s) in the last day' })
        .waitFor();
      // Rules and people both decided, and each sits in its own table.
      const rows = view.locator('tbody tr');
      expect(await rows.count()).toBeGreaterThan(5);
      const people = view.locator('table[data-deciders="people"] tbody tr');
      const others = view.locator('table[data-deciders="rules"] tbody tr');
      expect(await people.count()).toBeGreaterThan(0);
      expect(await others.count()).toBeGreaterThan(0);
      for (const decider of await people.evaluateAll((trs) =>
        trs.map((tr) => tr.getAttribute('data-decider')),
      )) {
        expect(decider).toBe('person');
      }
      for (const decider of await others.evaluateAll((trs) =>
        trs.map((tr) => tr.getAttribute('data-decider')),
      )) {
        expect(decider).not.toBe('person');
      }
      // The run id stays on one line.
      const cell = view.locator('td.run-id a').first();
      const box = await cell.boundingBox();
      const lineHeight = await cell.evaluate(
        (a) => Number.parseFloat(getComputedStyle(a).lineHeight) || 20,
      );
      expect(box?.height ?? 0).toBeLessThan(lineHeight * 1.5);
      await view.getByLabel('Outcome').selectOption('approved');
      await view.getByLabel('Only mine').check();
      const approved = await rows.count();
      expect(approved).toBeGreaterThanOrEqual(2);
      for (let i = 0; i < approved; i += 1) {
        expect(await rows.nth(i).getAttribute('data-outcome')).toBe('approved');
        expect(await rows.nth(i).textContent()).toMatch(/member:cred_/);
      }
      await view.getByLabel('Only mine').uncheck();
      await view.getByLabel('Outcome').selectOption('');
      await view.getByRole('searchbox', { name: 'Tool' }).fill('publish');
      expect(await rows.count()).toBeGreaterThan(0);
      for (const text of await rows.allTextContents()) expect(text).toContain('publish');
      expect(await axeViolations(f.page)).toEqual([]);
      await saveScreenshot(f.page, 'inbox-recent.png');
    });
  },
);
