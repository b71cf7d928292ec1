import type { Workspace } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';
import { axeViolations, browserSkipReason } from '../support/browser.js';
import { scriptedRun } from '../support/kernel.js';
import { useInboxFixture } from './inbox-fixture.js';

/** The inbox's keys where a person's focus is: they work from a tick box clicked a moment ago. */
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
  },
);
