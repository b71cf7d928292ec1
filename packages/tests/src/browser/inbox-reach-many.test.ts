import { describe, expect, it } from 'vitest';
import { browserSkipReason } from '../support/browser.js';
import { eventually } from '../support/kernel.js';
import { parkedWrites, secondLeadWithPolicy, useInboxFixture } from './inbox-fixture.js';

/*
 * A revoke or a new approval policy (policy.changed) changes the quorum of every waiting call:
 * the inbox reads the loaded rows again and redraws their counts and "too few approvers". With
 * more rows loaded than one read holds (100), the rows past it kept what they said before: "0 of
 * 2 approvals" and no warning after the revoke, and a card opened on one said it could be approved.
 */
describe.skipIf(browserSkipReason !== null)(
  'the web inbox in headless Chromium: a policy change with more than a hundred rows loaded',
  { timeout: 180_000 },
  () => {
    const f = useInboxFixture({ width: 1280, height: 800 });

    it('redraws every loaded row and the card of one past the hundredth', async () => {
      const lead = await secondLeadWithPolicy(f, 'Ana Lima', () => [
        { tool: 'write', approvers: ['group:leads'], required: 2 },
      ]);
      const calls = 150;
      for (const label of ['one', 'two', 'three']) await parkedWrites(f.ws, label, calls / 3);
      await eventually(async () => (await f.ws.decisions.page({ limit: 1 })).total === calls, {
        timeoutMs: 60_000,
      });

      const page = await f.openInbox();
      // Every row loaded: the "Show more" button read until none is left.
      await eventually(
        async () => {
          await page
            .locator('.more')
            .evaluate((more) => more.scrollIntoView())
            .catch(() => {});
          return (
            (await page.locator('.list li.row').count()) === calls &&
            (await page.locator('.more').isHidden())
          );
        },
        { timeoutMs: 60_000, what: 'every waiting call on the page' },
      );
      const keys = await page
        .locator('.list li.row')
        .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-decision') ?? ''));
      const first = keys[0] ?? '';
      const last = keys[calls - 1] ?? '';
      const row = (key: string) => page.locator(`.list [data-decision="${key}"]`);
      // The last row, read with its page: its card is drawn from that read.
      await row(last).locator('.open').click();
      const card = page.locator(`.detail article[data-decision="${last}"]`);
      await card.locator(':scope > .actions').waitFor();
      expect(await card.locator('.unreachable').count()).toBe(0);
      expect(await row(last).locator('.row-approvals').textContent()).toBe('0 of 2 approvals');

      // The second approver is revoked: no call can get its two approvals now.
      const admin = {
        authorization: `Bearer ${f.kernel.workspace.tokens.member}`,
        'content-type': 'application/json',
      };
      const workspace = `${f.kernel.url}/api/v1/workspaces/${f.kernel.workspace.id}`;
      const revoked = await fetch(
        `${workspace}/credentials/${lead.credential.credential_id}/revoke`,
        { method: 'POST', headers: admin, body: '{}' },
      );
      expect(revoked.status).toBe(200);
      await row(first).locator('.row-unreachable').waitFor();
      await row(last).locator('.row-unreachable').waitFor({ timeout: 20_000 });
      await card.locator('.unreachable').waitFor({ timeout: 20_000 });
      expect(await page.locator('.list .row-unreachable').count()).toBe(calls);

      // One approval of the signed-in member is enough again: every row says so.
      const me = await f.ws.self();
      const put = await fetch(`${workspace}/approval_policy`, {
        method: 'PUT',
        headers: admin,
        body: JSON.stringify({
          policy: { rules: [{ tool: 'write', approvers: [me.credential_id], required: 1 }] },
        }),
      });
      expect(put.status).toBe(200);
      await row(first).locator('.row-unreachable').waitFor({ state: 'detached' });
      await row(last).locator('.row-unreachable').waitFor({ state: 'detached', timeout: 20_000 });
      await card.locator('.unreachable').waitFor({ state: 'detached', timeout: 20_000 });
      expect(await page.locator('.list .row-unreachable').count()).toBe(0);
      expect(await page.locator('.list .row-approvals').count()).toBe(0);
    });
  },
);
