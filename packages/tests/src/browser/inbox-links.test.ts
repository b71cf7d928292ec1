import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, browserSkipReason } from '../support/browser.js';
import { useInboxFixture } from './inbox-fixture.js';

/** Links to a run story that is not there: a run since removed, a mistyped id, a bad escape. */
const MISSING_RUN_LINKS = ['#/runs/run_0mxbNoSuchRun000000000000', '#/runs/%E0%A4%A'];

/**
 * A link to a page that cannot open keeps the person signed in: the page
 * says so inside the signed-in frame, whether it is the page a reload opens
 * or the page a person signs in on. Only a refused token signs them out.
 */
describe.skipIf(browserSkipReason !== null)(
  'the web inbox in headless Chromium: links that cannot open',
  { timeout: 90_000 },
  () => {
    const f = useInboxFixture();

    /** What the page says once it gave up on its first page: the frame's error line, or the sign-in form's. */
    async function pageError(page: Page): Promise<string | null> {
      const said = page
        .locator('.content [role="alert"]')
        .or(page.locator('form.sign-in .message', { hasText: /Cannot|Refused|session ended/ }));
      await said.waitFor();
      return said.textContent();
    }

    /** Chromium logs each 404 of the missing run itself; no other console error is expected. */
    function onlyNotFoundLogged(): void {
      const errors = f.consoleErrors.splice(0);
      expect(errors.filter((error) => !/status of 404/.test(error))).toEqual([]);
    }

    const session = () => sessionStorage.getItem('airlock.inbox.session') !== null;

    it('keeps the session when a reload opens a run story that is not there', async () => {
      for (const link of MISSING_RUN_LINKS) {
        const page = await f.openSignedIn(link);
        expect(await pageError(page)).toMatch(/^Cannot open the page: /);
        expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
        expect(await page.evaluate(session)).toBe(true);
        expect(await axeViolations(page)).toEqual([]);
        onlyNotFoundLogged();
        // Still signed in: the frame's own link opens the waiting list.
        await page.getByRole('link', { name: 'Waiting', exact: true }).click();
        await page.locator('.status[data-status="live"]').waitFor();
      }
    });

    it('signs in from a link to a run story that is not there', async () => {
      for (const link of MISSING_RUN_LINKS) {
        const page = await f.browser.newPage();
        const errors: string[] = [];
        page.on('console', (message) => {
          if (message.type() === 'error') errors.push(message.text());
        });
        await page.goto(`${f.kernel.url}/${link}`);
        await page.getByLabel('Workspace id').fill(f.kernel.workspace.id);
        await page.getByLabel('Member token').fill(f.kernel.workspace.tokens.member);
        await page.getByRole('button', { name: 'Sign in' }).click();
        expect(await pageError(page)).toMatch(/^Cannot open the page: /);
        expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
        expect(await page.evaluate(session)).toBe(true);
        expect(errors.filter((error) => !/status of 404/.test(error))).toEqual([]);
        await page.close();
      }
    });

    it('still signs out when the kernel refuses the saved token', async () => {
      const page = await f.browser.newPage();
      await page.addInitScript(
        (saved) => sessionStorage.setItem('airlock.inbox.session', JSON.stringify(saved)),
        { url: f.kernel.url, workspaceId: f.kernel.workspace.id, token: 'alk_member_not-a-token' },
      );
      await page.goto(`${f.kernel.url}/#/runs/run_0mxbNoSuchRun000000000000`);
      await page.getByText('Your session ended; sign in again.').waitFor();
      expect(await page.evaluate(session)).toBe(false);
      await page.close();
    });
  },
);
