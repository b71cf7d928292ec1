import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, browserSkipReason } from '../support/browser.js';
import { eventually, scriptedRun } from '../support/kernel.js';
import { secondLeadWithPolicy, useInboxFixture } from './inbox-fixture.js';

/*
 * A parked call whose quorum too few live members can give (an approver revoked since the
 * policy was written) says so, in words, on its row and on its card: it would otherwise wait
 * for its deadline with "0 of 2 approvals" and nothing to tell the person why. A call whose
 * quorum can still be met says nothing of it.
 */
describe.skipIf(browserSkipReason !== null)(
  'the web inbox in headless Chromium: a quorum too few members can meet',
  { timeout: 120_000 },
  () => {
    const f = useInboxFixture({ width: 1280, height: 800 });

    async function openCall(page: Page, key: string) {
      await page.locator(`.list [data-decision="${key}"] .open`).click();
      const card = page.locator(`.detail article[data-decision="${key}"]`);
      await card.waitFor();
      return card;
    }

    it('says on the row and the card that too few can approve it; a reachable call does not', async () => {
      const lead = await secondLeadWithPolicy(f, 'Ana Lima', () => [
        { tool: 'release', approvers: ['group:leads'], required: 2 },
      ]);
      const run = await f.ws.runs.create(
        scriptedRun('ask', [
          {
            tool_calls: [
              { name: 'release', input: { version: '5.0.0' } },
              { name: 'bash', input: { command: 'rm -rf build' } },
            ],
          },
          { final: 'done' },
        ]),
      );
      await eventually(
        async () => (await f.ws.runs.run(run.id).task('t2')).state === 'needs_approval',
      );
      // The second approver of the required:2 rule is revoked: one approver is left for two.
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

      const page = await f.openInbox();
      const row = (task: string) => page.locator(`.list [data-decision="${run.id}/${task}"]`);
      await row('t2').waitFor();
      const stuck = await openCall(page, `${run.id}/t1`);
      const said = stuck.locator('.unreachable');
      await said.waitFor();
      expect(await said.textContent()).toMatch(
        /^Too few members can approve this call \(it needs 2 approvals\); an admin can change the workspace's approval policy, or it expires in .+\.$/,
      );
      await row('t1').locator('.row-unreachable').waitFor();
      expect(await row('t1').locator('.line-meta').textContent()).toMatch(
        /^too few approvers · 0 of 2 approvals · /,
      );
      expect(await axeViolations(page)).toEqual([]);

      const fine = await openCall(page, `${run.id}/t2`);
      await fine.locator(':scope > .actions').waitFor();
      expect(await fine.locator('.unreachable').count()).toBe(0);
      expect(await row('t2').locator('.row-unreachable').count()).toBe(0);

      // The run's story says it on the parked row too, and not on the reachable one.
      await page.goto(`${f.kernel.url}/#/runs/${run.id}`);
      const storyRow = (task: string) => page.locator(`.run-view .row[data-task="${task}"]`);
      await storyRow('t1').locator('.unreachable').waitFor();
      expect(await storyRow('t1').locator('.unreachable').textContent()).toMatch(
        /^Too few members can approve this call \(it needs 2 approvals\)/,
      );
      await storyRow('t2').locator('[data-action="approve"]').waitFor();
      expect(await storyRow('t2').locator('.unreachable').count()).toBe(0);
      expect(await axeViolations(page)).toEqual([]);

      // Approving it says the rest cannot come, never that the call waits for more approvals.
      await storyRow('t1').locator('[data-action="approve"]').click();
      await page
        .getByText(
          'Your approval is recorded (1 of 2 approvals), but too few members can approve this call to complete it',
          { exact: false },
        )
        .first()
        .waitFor();
    });
  },
);
