import { createClient, type Workspace } from '@airlock/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, browserSkipReason } from '../support/browser.js';
import { eventually, scriptedRun } from '../support/kernel.js';
import { secondLeadWithPolicy, useInboxFixture } from './inbox-fixture.js';

/**
 * A run's story never swaps a parked row under the person reading it: an
 * edit another lead made says so on the row, whose buttons stay bound to
 * what was read, and what the person typed stays where they typed it.
 */
describe.skipIf(browserSkipReason !== null)(
  'the web inbox in headless Chromium: a run story decides only what was read',
  { timeout: 120_000 },
  () => {
    const f = useInboxFixture({ width: 1280, height: 800 });
    /** The workspace as Ana Lima, the second of two leads a release needs. */
    let ana: Workspace;

    beforeAll(async () => {
      const lead = await secondLeadWithPolicy(f, 'Ana Lima', () => [
        { tool: 'release', approvers: ['group:leads'], required: 2 },
      ]);
      ana = createClient({ url: f.kernel.url, token: lead.token }).workspace(f.kernel.workspace.id);
    });

    async function parked(ws: Workspace, runId: string, task: string) {
      const decision = await ws.decisions.get(runId, task);
      if (!decision?.isApproval()) throw new Error(`expected ${runId}/${task} to wait`);
      return decision;
    }

    it('keeps a parked row as read when another lead edits it, with the typed reason, until the person shows the current call', async () => {
      const run = await f.ws.runs.create(
        scriptedRun('ask', [
          { tool_calls: [{ name: 'release', input: { version: '7.0.0' } }] },
          { final: 'released' },
        ]),
      );
      await eventually(
        async () => (await f.ws.runs.run(run.id).task('t1')).state === 'needs_approval',
      );
      const page = await f.openSignedIn(`#/runs/${run.id}`);
      const row = page.locator('.run-view .row[data-task="t1"]');
      const reason = row.locator('input[name="reason"]');
      await reason.waitFor();
      await reason.click();
      await page.keyboard.type('not before the notes');

      await (await parked(ana, run.id, 't1')).approve({ tool_input: { version: '7.0.0-evil' } });
      // The feed brings the edit: the row's history says it, the row says it changed.
      await row.locator('.decision[data-outcome="edited"]').waitFor();
      const changed = row.locator('.changed');
      await changed.waitFor();
      expect(await changed.textContent()).toMatch(
        /^This call changed while you were on it: its input was edited\. What you typed is kept\./,
      );
      // What the person read, and typed, is where it was.
      expect(await row.locator('.story-input').textContent()).not.toContain('7.0.0-evil');
      expect(await reason.inputValue()).toBe('not before the notes');
      expect(await reason.evaluate((element) => element === document.activeElement)).toBe(true);
      expect(await axeViolations(page)).toEqual([]);

      // Approve answers the call as read: the kernel refuses it, and nothing is approved.
      await row.getByRole('button', { name: /^Approve release/ }).click();
      await row.locator('.message').filter({ hasText: 'version_mismatch' }).waitFor();
      expect(f.consoleErrors.splice(0)).toEqual([
        'Failed to load resource: the server responded with a status of 409 (Conflict)',
      ]);
      const task = await f.ws.runs.run(run.id).task('t1');
      expect(task.state).toBe('needs_approval');
      expect(task.approvals?.received.map((approval) => approval.name)).toEqual(['Ana Lima']);

      // Shown deliberately: the call as it is now, the typed reason still there.
      await row.getByRole('button', { name: 'Show the current call' }).click();
      await row.locator('.story-input').filter({ hasText: '7.0.0-evil' }).waitFor();
      expect(await row.locator('.changed').count()).toBe(0);
      const now = page.locator('.run-view .row[data-task="t1"] input[name="reason"]');
      expect(await now.inputValue()).toBe('not before the notes');
      await page.locator('.run-view .row[data-task="t1"] [data-action="deny"]').click();
      await page
        .locator('.run-view .row[data-task="t1"] .decision[data-outcome="denied"]')
        .waitFor();
      expect((await f.ws.runs.run(run.id).task('t1')).state).not.toBe('needs_approval');
    });

    it('says on a story row that an approval toward a quorum is recorded, and leaves Deny to use', async () => {
      const run = await f.ws.runs.create(
        scriptedRun('ask', [
          { tool_calls: [{ name: 'release', input: { version: '8.0.0' } }] },
          { final: 'released' },
        ]),
      );
      await eventually(
        async () => (await f.ws.runs.run(run.id).task('t1')).state === 'needs_approval',
      );
      const page = await f.openSignedIn(`#/runs/${run.id}`);
      const row = () => page.locator('.run-view .row[data-task="t1"]');
      await row()
        .getByRole('button', { name: /^Approve release/ })
        .click();
      await row()
        .locator('.message')
        .filter({ hasText: 'Your approval is recorded (1 of 2 approvals)' })
        .waitFor();
      // The message comes with the approve's answer, the story's decision line with the feed's
      // event after it: wait for the line, then see there is one.
      const added = row().locator('.decision[data-outcome="approval_added"]');
      await added.first().waitFor();
      expect(await added.count()).toBe(1);
      expect(await row().locator('[data-action="deny"]').isEnabled()).toBe(true);
      expect(await axeViolations(page)).toEqual([]);
      await row().locator('[data-action="deny"]').click();
      await row().locator('.decision[data-outcome="denied"]').waitFor();
      expect((await f.ws.runs.run(run.id).task('t1')).state).not.toBe('needs_approval');
    });

    it('keeps a reason being typed on a story row that was decided elsewhere, in a note that sends nothing', async () => {
      const run = await f.ws.runs.create(
        scriptedRun('ask', [
          { tool_calls: [{ name: 'bash', input: { command: 'echo decided-elsewhere' } }] },
          { final: 'done' },
        ]),
      );
      await eventually(
        async () => (await f.ws.runs.run(run.id).task('t1')).state === 'needs_approval',
      );
      const page = await f.openSignedIn(`#/runs/${run.id}`);
      const row = page.locator('.run-view .row[data-task="t1"]');
      await row.locator('input[name="reason"]').click();
      await page.keyboard.type('half a reas');
      await (await parked(f.ws, run.id, 't1')).deny({ reason: 'denied elsewhere' });
      await row.locator('.decision[data-outcome="denied"]').waitFor();
      const note = page.locator('.run-view .unsent');
      await note.waitFor();
      expect(await note.locator('.unsent-said').textContent()).toMatch(
        /^Nothing you typed was sent/,
      );
      await page.keyboard.type('on');
      expect(await note.locator('textarea').inputValue()).toBe('half a reason');
      expect(await axeViolations(page)).toEqual([]);
    });
  },
);
