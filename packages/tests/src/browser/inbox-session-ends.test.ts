import { createCredential } from '@airlock/server';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserSkipReason } from '../support/browser.js';
import { eventually, scriptedRun } from '../support/kernel.js';
import { holdFeed } from './held-feed.js';
import { useInboxFixture } from './inbox-fixture.js';

/** A session whose token is revoked while a page is open. */
describe.skipIf(browserSkipReason !== null)(
  'the web inbox in headless Chromium: a session that ends mid-use',
  { timeout: 90_000 },
  () => {
    const f = useInboxFixture();

    /** A second member's token, signed in on a page at `path`; answers a revoke of it. */
    async function signedInAs(label: string, path: string, before?: (page: Page) => Promise<void>) {
      const made = await createCredential(f.kernel.airlock.store, {
        workspaceId: f.kernel.workspace.id,
        kind: 'member',
        label,
      });
      const page = await f.openSignedIn(path, undefined, undefined, async (opened) => {
        await opened.addInitScript(
          (session) => sessionStorage.setItem('airlock.inbox.session', JSON.stringify(session)),
          { workspaceId: f.kernel.workspace.id, token: made.token },
        );
        await before?.(opened);
      });
      const revoke = async () => {
        const response = await fetch(
          `${f.kernel.url}/api/v1/workspaces/${f.kernel.workspace.id}/credentials/${made.credential.credential_id}/revoke`,
          {
            method: 'POST',
            headers: { authorization: `Bearer ${f.kernel.workspace.tokens.member}` },
          },
        );
        expect(response.status).toBeLessThan(300);
      };
      return { page, revoke };
    }

    /**
     * Chromium logs each 401 the page received; those are expected here, nothing else is. A feed
     * that reconnects with the revoked token meets a 401 handshake, which Chromium may log as
     * "HTTP Authentication failed; no valid credentials available" without naming the status.
     */
    function only401s() {
      const errors = f.consoleErrors.splice(0);
      const refused = /\b401\b|HTTP Authentication failed/;
      expect(errors.filter((text) => !refused.test(text))).toEqual([]);
    }

    /** A run whose one bash call waits for a person. */
    async function parkedRun(command: string) {
      const run = await f.ws.runs.create(
        scriptedRun('ask', [
          { tool_calls: [{ name: 'bash', input: { command } }] },
          { final: 'done', expect: 'removed' },
        ]),
      );
      await eventually(
        async () => (await f.ws.runs.run(run.id).task('t1')).state === 'needs_approval',
      );
      return run;
    }

    it("a run story's feed refused for a revoked token signs out instead of leaving Approve live", async () => {
      const run = await parkedRun('make clean');
      const { page, revoke } = await signedInAs('Story Reader', `#/runs/${run.id}`);
      const row = page.locator('.run-view .row[data-task="t1"]');
      await row.getByRole('button', { name: /^Approve/ }).waitFor();
      await revoke();
      const form = page.locator('form.sign-in');
      await form.waitFor();
      expect(await form.locator('.message').textContent()).toMatch(/revoked/);
      expect(await page.locator('.run-view').count()).toBe(0);
      expect((await f.ws.runs.run(run.id).task('t1')).state).toBe('needs_approval');
      only401s();
    });

    it('an Approve refused for a token that stopped working signs out, and the call still waits', async () => {
      const run = await parkedRun('make dist');
      // The page's feeds never reach the kernel, so the verb is what meets the refusal. A feed
      // let through would meet it first: the revoke closes the kernel's end of each feed (the
      // page reconnects, is refused and signs out), and each event or opening has the story read
      // its rows again, refused as well; either can sign out before the click finds Approve.
      const { page, revoke } = await signedInAs('Story Approver', `#/runs/${run.id}`, (opened) =>
        holdFeed(opened).then(() => {}),
      );
      const approve = page.locator('.run-view .row[data-task="t1"]').getByRole('button', {
        name: /^Approve/,
      });
      await approve.waitFor();
      await revoke();
      await approve.click();
      await page.locator('form.sign-in').waitFor();
      expect(await page.locator('.run-view').count()).toBe(0);
      expect(await page.locator('form.sign-in .message').textContent()).toMatch(/revoked/);
      expect((await f.ws.runs.run(run.id).task('t1')).state).toBe('needs_approval');
      only401s();
    });
  },
);
