import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, browserSkipReason } from '../support/browser.js';
import { holdFeed } from './held-feed.js';
import { parkReleaseForLeads, useInboxFixture } from './inbox-fixture.js';

/*
 * A call that parked while its quorum could be met, whose second approver is then revoked:
 * the revoke comes as policy.changed (the list reads its first page again), and the next
 * approval's task.approval_added carries reachable: false. The inbox's row (drawn from that event, without a read), the open
 * card and the run story's row each say "too few approvers" from it, live.
 */
describe.skipIf(browserSkipReason !== null)(
  'the web inbox in headless Chromium: an approval after a revoke',
  { timeout: 120_000 },
  () => {
    const f = useInboxFixture({ width: 1280, height: 800 });

    /** A second signed-in page beside the fixture's, at `path`; `before` runs before it navigates. */
    async function secondPage(path: string, before?: (page: Page) => Promise<void>): Promise<Page> {
      const page = await f.browser.newPage({ viewport: { width: 1280, height: 800 } });
      await before?.(page);
      await page.addInitScript(
        (session) => sessionStorage.setItem('airlock.inbox.session', JSON.stringify(session)),
        {
          url: f.kernel.url,
          workspaceId: f.kernel.workspace.id,
          token: f.kernel.workspace.tokens.member,
        },
      );
      await page.goto(`${f.kernel.url}/${path}`);
      return page;
    }

    it('says too few approvers on the row, the card and the story row once an approval says so', async () => {
      const { lead, run } = await parkReleaseForLeads(f, 'Ana Lima', ['5.0.0', '5.0.1']);

      const page = await f.openInbox();
      const row = (task: string) => page.locator(`.list [data-decision="${run.id}/${task}"]`);
      await row('t2').waitFor();
      await page.locator(`.list [data-decision="${run.id}/t1"] .open`).click();
      const card = page.locator(`.detail article[data-decision="${run.id}/t1"]`);
      await card.locator(':scope > .actions').waitFor();
      expect(await card.locator('.unreachable').count()).toBe(0);

      const story = await secondPage(`#/runs/${run.id}`);
      const storyRow = (task: string) => story.locator(`.run-view .row[data-task="${task}"]`);
      await storyRow('t2').locator('[data-action="approve"]').waitFor();
      expect(await story.locator('.run-view .unreachable').count()).toBe(0);

      // The second approver is revoked.
      const revoked = await fetch(
        `${f.kernel.url}/api/v1/workspaces/${f.kernel.workspace.id}/credentials/${lead.credential.credential_id}/revoke`,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${f.kernel.workspace.tokens.member}`,
            'content-type': 'application/json',
          },
          body: '{}',
        },
      );
      expect(revoked.status).toBe(200);

      // An approval elsewhere of the row not open: its event says the rest cannot come.
      const approve = async (task: string) => {
        const decision = await f.ws.decisions.get(run.id, task);
        if (!decision?.isApproval()) throw new Error(`${task} does not wait`);
        await decision.approve();
      };
      await approve('t2');
      // The revoke alone may already say "too few approvers" (the inbox follows policy.changed):
      // the approval is in once the count says so.
      await expect
        .poll(() => row('t2').locator('.line-meta').textContent(), { timeout: 30_000 })
        .toMatch(/^too few approvers · 1 of 2 approvals · /);
      await storyRow('t2').locator('.unreachable').waitFor();
      expect(await storyRow('t2').locator('.unreachable').textContent()).toMatch(
        /^Too few members can approve this call \(it needs 2 approvals\)/,
      );

      // The open row's card says it too.
      await approve('t1');
      await card.locator('.unreachable').waitFor();
      await row('t1').locator('.row-unreachable').waitFor();
      await storyRow('t1').locator('.unreachable').waitFor();
      expect(await axeViolations(page)).toEqual([]);
      expect(await axeViolations(story)).toEqual([]);
      await story.close();

      for (const decision of await f.ws.decisions.list()) {
        if (decision.isApproval()) await decision.deny({ reason: 'stuck' });
      }
    });

    it("says it on a run story's row when the revoke came before the story's feed was live", async () => {
      const { lead, run } = await parkReleaseForLeads(f, 'Cy Park', ['7.0.0']);
      // The story reads its rows, and again as its run's feed replays the run's events; its
      // workspace feed (no run_id) reaches the kernel only after the revoke, so the
      // policy.changed lies before that feed's start.
      let held = { release: () => {} };
      const story = await secondPage(`#/runs/${run.id}`, async (page) => {
        held = await holdFeed(page, (url) => !url.searchParams.has('run_id'));
      });
      const storyRow = story.locator('.run-view .row[data-task="t1"]');
      await storyRow.locator('[data-action="approve"]').waitFor();
      // The replay is drawn: the revoke comes after the story's last read.
      await storyRow.locator('.decisions').filter({ hasText: 'parked by' }).waitFor();
      expect(await storyRow.locator('.unreachable').count()).toBe(0);
      const revoked = await fetch(
        `${f.kernel.url}/api/v1/workspaces/${f.kernel.workspace.id}/credentials/${lead.credential.credential_id}/revoke`,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${f.kernel.workspace.tokens.member}`,
            'content-type': 'application/json',
          },
          body: '{}',
        },
      );
      expect(revoked.status).toBe(200);
      held.release();
      await storyRow.locator('.unreachable').waitFor();
      await story.close();
      const decision = await f.ws.decisions.get(run.id, 't1');
      if (decision?.isApproval()) await decision.deny({ reason: 'done' });
    });

    it('says it on the row and the card as the revoke and the policy change arrive, with no approval', async () => {
      const { lead, run } = await parkReleaseForLeads(f, 'Bo Chen', ['6.0.0', '6.0.1']);
      const page = await f.openInbox();
      const row = (task: string) => page.locator(`.list [data-decision="${run.id}/${task}"]`);
      await row('t2').waitFor();
      await page.locator(`.list [data-decision="${run.id}/t1"] .open`).click();
      const card = page.locator(`.detail article[data-decision="${run.id}/t1"]`);
      await card.locator(':scope > .actions').waitFor();
      // What the person types on the card survives the card drawn again.
      await card.locator('input[name="reason"]').fill('half typed');
      const story = await secondPage(`#/runs/${run.id}`);
      const storyRow = story.locator('.run-view .row[data-task="t1"]');
      await storyRow.locator('[data-action="approve"]').waitFor();

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
      await row('t2').locator('.row-unreachable').waitFor();
      await row('t1').locator('.row-unreachable').waitFor();
      await card.locator('.unreachable').waitFor();
      expect(await card.locator('input[name="reason"]').inputValue()).toBe('half typed');
      await storyRow.locator('.unreachable').waitFor();

      // One approval is enough again: the warnings go as the change arrives.
      const me = await f.ws.self();
      const put = await fetch(`${workspace}/approval_policy`, {
        method: 'PUT',
        headers: admin,
        body: JSON.stringify({
          policy: { rules: [{ tool: 'release', approvers: [me.credential_id], required: 1 }] },
        }),
      });
      expect(put.status).toBe(200);
      await row('t2').locator('.row-unreachable').waitFor({ state: 'detached' });
      await card.locator('.unreachable').waitFor({ state: 'detached' });
      await storyRow.locator('.unreachable').waitFor({ state: 'detached' });
      expect(await axeViolations(page)).toEqual([]);
      await story.close();

      for (const decision of await f.ws.decisions.list()) {
        if (decision.isApproval()) await decision.deny({ reason: 'done' });
      }
    });
  },
);
