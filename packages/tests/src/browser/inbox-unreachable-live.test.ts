import { describe, expect, it } from 'vitest';
import { browserSkipReason } from '../support/browser.js';
import { scriptedRun } from '../support/kernel.js';
import { secondLeadWithPolicy, useInboxFixture } from './inbox-fixture.js';

/*
 * A call that parks while the inbox is open, under a rule an earlier revoke left with too few
 * approvers, is drawn from its own feed events (no read of the row): its park's
 * approvals_reachable puts "too few approvers" on the new row at once, where it would otherwise
 * say "0 of 2 approvals" alone until someone read the row.
 */
describe.skipIf(browserSkipReason !== null)(
  'the web inbox in headless Chromium: a live park under an unreachable quorum',
  { timeout: 120_000 },
  () => {
    const f = useInboxFixture({ width: 1280, height: 800 });

    it('says too few approvers on the row its events draw, without reading it', async () => {
      const lead = await secondLeadWithPolicy(f, 'Ana Lima', () => [
        { tool: 'release', approvers: ['group:leads'], required: 2 },
      ]);
      // The second approver of the required:2 rule is revoked before anything parks.
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
      const reads: string[] = [];
      page.on('request', (request) => {
        if (request.url().includes('/trpc/tasks.get')) reads.push(request.url());
      });
      const run = await f.ws.runs.create(
        scriptedRun('ask', [
          {
            tool_calls: [
              { name: 'release', input: { version: '5.0.0' } },
              { name: 'bash', input: { command: 'ls build' } },
            ],
          },
          { final: 'done' },
        ]),
      );
      const row = (task: string) => page.locator(`.list [data-decision="${run.id}/${task}"]`);
      await row('t2').waitFor();
      await row('t1').waitFor();
      // Drawn once, from the park's events: what it says now is what the events said.
      expect(await row('t1').locator('.line-meta').textContent()).toMatch(
        /^too few approvers · 0 of 2 approvals · /,
      );
      expect(await row('t2').locator('.row-unreachable').count()).toBe(0);
      expect(reads).toEqual([]);

      // The run's story, drawn from the same events, says it of the park too.
      await page.goto(`${f.kernel.url}/#/runs/${run.id}`);
      const decisions = (task: string) =>
        page.locator(`.run-view .row[data-task="${task}"] .decisions`);
      await decisions('t1')
        .filter({
          hasText: 'it needs 2 approvals; too few members could approve it when it parked',
        })
        .waitFor();
      await decisions('t2').filter({ hasText: 'parked by mode ask' }).waitFor();
      expect(await decisions('t2').textContent()).not.toContain('too few members');
    });
  },
);
