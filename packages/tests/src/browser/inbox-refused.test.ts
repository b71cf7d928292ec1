import { describe, expect, it } from 'vitest';
import { axeViolations, browserSkipReason } from '../support/browser.js';
import { eventually, scriptedRun } from '../support/kernel.js';
import { useInboxFixture } from './inbox-fixture.js';

/** A guardrail that refuses every deploy, whatever set a run selected. */
const NO_DEPLOYS = [
  {
    ruleSetId: 'supervised',
    rules: [
      { verdict: 'deny', guardrail: true, tools: ['deploy'], reason: 'deploys are frozen today' },
    ],
  },
];

/**
 * An approve the kernel refuses because a guardrail added since the call
 * parked refuses it (`approval_refused`) leaves the call waiting: the inbox
 * says so on the card and in the bulk bar, and keeps its row, never as if it
 * had been decided elsewhere. A read that fails says so as a failure.
 */
describe.skipIf(browserSkipReason !== null)(
  'the web inbox in headless Chromium: an approve a guardrail refuses',
  { timeout: 120_000 },
  () => {
    const f = useInboxFixture({ width: 1280, height: 800 });

    async function freezeDeploys(): Promise<void> {
      const path = `${f.kernel.url}/api/v1/workspaces/${f.kernel.workspace.id}/overlays/user/me`;
      const headers = {
        authorization: `Bearer ${f.kernel.workspace.tokens.member}`,
        'content-type': 'application/json',
      };
      const read = (await (await fetch(path, { headers })).json()) as { digest: string | null };
      const put = await fetch(path, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ expected_digest: read.digest, groups: NO_DEPLOYS }),
      });
      expect(put.status).toBe(200);
    }

    it('says the refusal on the card and in the bulk bar, and keeps the waiting rows', async () => {
      const run = await f.ws.runs.create(
        scriptedRun('ask', [
          {
            tool_calls: [
              { name: 'deploy', input: { env: 'prod' } },
              { name: 'deploy', input: { env: 'staging' } },
            ],
          },
          { final: 'done' },
        ]),
      );
      await eventually(
        async () => (await f.ws.runs.run(run.id).task('t2')).state === 'needs_approval',
      );
      await freezeDeploys();
      const page = await f.openInbox();
      const row = (task: string) => page.locator(`.list [data-decision="${run.id}/${task}"]`);
      await row('t1').locator('.open').click();
      const card = page.locator(`.detail article[data-decision="${run.id}/t1"]`);
      await card.locator('[data-action="approve"]').click();
      await card.locator('.message').filter({ hasText: 'approval_refused' }).waitFor();
      expect(await card.locator('.message').textContent()).toContain('deploys are frozen today');
      expect(await row('t1').count()).toBe(1);

      await row('t2').locator('.tick').check();
      await page.getByRole('button', { name: 'Approve selected' }).click();
      const result = page.locator(`.bulk-results [data-decision="${run.id}/t2"]`);
      await result.waitFor();
      expect(await result.getAttribute('data-result')).toBe('refused');
      expect(await result.textContent()).toContain('approval_refused');
      expect(await page.locator('.bulk-message').textContent()).toBe('1 refused');
      expect(await row('t2').count()).toBe(1);
      expect(await axeViolations(page)).toEqual([]);
      expect(f.consoleErrors.splice(0)).toEqual([
        'Failed to load resource: the server responded with a status of 409 (Conflict)',
        'Failed to load resource: the server responded with a status of 409 (Conflict)',
      ]);
      for (const task of ['t1', 't2']) {
        expect((await f.ws.runs.run(run.id).task(task)).state).toBe('needs_approval');
      }
    });

    it('says a failed read as a failure, never in the colour and state of a live feed', async () => {
      const page = await f.openInbox();
      // Every read of one row fails, as a proxy in front of the kernel might.
      await page.route(/tasks\.get/, (route) =>
        route.fulfill({ status: 500, contentType: 'text/plain', body: 'upstream down' }),
      );
      const run = await f.ws.runs.create(
        scriptedRun('ask', [
          { tool_calls: [{ name: 'bash', input: { command: 'echo read-me' } }] },
          { final: 'done' },
        ]),
      );
      // A first park is drawn from its events: opening it reads it.
      await page.locator(`.list [data-decision="${run.id}/t1"] .open`).click();
      const status = page.locator('.toolbar .status');
      await status.filter({ hasText: /^error: / }).waitFor();
      expect(await status.getAttribute('data-status')).toBe('error');
      const color = await status.evaluate((element) => getComputedStyle(element).color);
      expect(color).not.toBe('rgb(26, 127, 55)');
      expect(await axeViolations(page)).toEqual([]);
      f.consoleErrors.splice(0);
      await page.unroute(/tasks\.get/);
      const decision = await f.ws.decisions.get(run.id, 't1');
      if (decision?.isApproval()) await decision.deny({ reason: 'done' });
    });
  },
);
