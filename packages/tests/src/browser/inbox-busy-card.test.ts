import { createClient } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';
import { browserSkipReason } from '../support/browser.js';
import { eventually } from '../support/kernel.js';
import { parkReleaseForLeads, useInboxFixture } from './inbox-fixture.js';

/*
 * A card whose verb is on its way was drawn anew when another member's approval of the same
 * call arrived meanwhile: the new card's Approve was live (a second press sent a second verb),
 * and the first verb's answer or refusal landed on the card no longer shown. The card now
 * stays, buttons disabled, counting the approval in place, and is drawn anew once its verb's
 * answer is in.
 */
describe.skipIf(browserSkipReason !== null)(
  'the web inbox in headless Chromium: a card while its verb is on its way',
  { timeout: 120_000 },
  () => {
    const f = useInboxFixture({ width: 1280, height: 800 });

    it('keeps the card and its disabled buttons through another approval, then shows the answer', async () => {
      const { lead, run } = await parkReleaseForLeads(f, 'Ana Lima', ['7.0.0']);
      const page = await f.openInbox();
      const held: (() => void)[] = [];
      await page.route(/\/tasks\/t1\/approve$/, async (route) => {
        await new Promise<void>((go) => held.push(go));
        await route.continue();
      });
      await page.locator(`.list [data-decision="${run.id}/t1"] .open`).click();
      const card = page.locator(`.detail article[data-decision="${run.id}/t1"]`);
      const approve = card.locator(':scope > .actions [data-action="approve"]');
      await approve.click();
      await eventually(() => held.length === 1);
      expect(await approve.isDisabled()).toBe(true);

      // Ana approves elsewhere while this page's approval is held.
      const ana = createClient({ url: f.kernel.url, token: lead.token }).workspace(
        f.kernel.workspace.id,
      );
      const decision = await ana.decisions.get(run.id, 't1');
      if (!decision?.isApproval()) throw new Error('t1 does not wait');
      await decision.approve();
      await card.locator('.approvals').filter({ hasText: '1 of 2 approvals (Ana Lima)' }).waitFor();
      expect(await card.count()).toBe(1);
      expect(await approve.isDisabled()).toBe(true);

      // The held approval goes on and completes the quorum: the call is granted and its card goes.
      held[0]?.();
      await card.waitFor({ state: 'detached' });
      const line = page.locator(`.after[data-after="${run.id}/t1"]`);
      expect(await line.textContent()).toContain('Approved by you');
      await page.unrouteAll({ behavior: 'wait' });
      // Granted: it waits for an executor of release (none here).
      expect((await f.ws.runs.run(run.id).task('t1')).state).toBe('runnable');
    });
  },
);
