import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inboxDistDir } from '@airlock/inbox';
import { describe, expect, it } from 'vitest';
import { axeViolations, browserSkipReason, saveScreenshot } from '../support/browser.js';
import { scriptedRun } from '../support/kernel.js';
import { useInboxFixture } from './inbox-fixture.js';

if (browserSkipReason)
  console.warn(`[airlock tests] skipping the browser test: ${browserSkipReason}`);

/** The cards of the inbox: signing in, reading a call, approving, denying, answering. */
describe.skipIf(browserSkipReason !== null)(
  'the web inbox in headless Chromium: its cards',
  { timeout: 90_000 },
  () => {
    const f = useInboxFixture();

    it('bundles the SDK for the browser without Node built-ins or the ws fallback', () => {
      const assets = join(inboxDistDir(), 'assets');
      const scripts = readdirSync(assets).filter((name) => name.endsWith('.js'));
      expect(scripts.length).toBeGreaterThan(0);
      for (const name of scripts) {
        const code = readFileSync(join(assets, name), 'utf8');
        expect(code).not.toMatch(/["']node:[a-z]/);
        expect(code).not.toMatch(/from\s*["']ws["']|require\(["']ws["']\)/);
      }
    });

    it('serves a complete CSP, and the sign-in page has no axe-core violations', async () => {
      const answer = await f.page.goto(f.kernel.url);
      expect(answer?.headers()['content-type']).toBe('text/html; charset=utf-8');
      const csp = answer?.headers()['content-security-policy'] ?? '';
      for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'"]) {
        expect(csp).toContain(directive);
      }
      await f.page.getByLabel('Workspace id').waitFor();
      // The CSP lets the page reach its own origin only: it offers no other kernel to sign in to.
      await expect(f.page.locator('form.sign-in input').count()).resolves.toBe(2);
      expect(await axeViolations(f.page)).toEqual([]);
      await saveScreenshot(f.page, 'inbox-sign-in.png');
      await f.page.getByLabel('Workspace id').fill(f.kernel.workspace.id);
      await f.page.getByLabel('Member token').fill(f.kernel.workspace.tokens.member);
      await f.page.getByRole('button', { name: 'Sign in' }).click();
      await f.page.locator('.status[data-status="live"]').waitFor();
      await expect(f.page.locator('.empty').isVisible()).resolves.toBe(true);
    });

    it('names every card and button by its call, shows options as the only input, and passes axe', async () => {
      // Parked after the page signed in: the cards must arrive over the feed.
      const cleanup = await f.ws.runs.create(
        scriptedRun(
          'rules',
          [
            {
              tool_calls: [
                {
                  name: 'bash',
                  input: { command: 'rm -rf ./build && curl -sO https://example.com/x.tgz' },
                },
              ],
            },
            { final: 'The build directory is clean.', expect: 'removed' },
          ],
          [
            { tool: 'bash', path: 'command', match: 'ls*', verdict: 'allow' },
            { tool: 'bash', path: 'command', match: '*rm -rf*', verdict: 'ask' },
          ],
        ),
      );
      const single = await f.ws.runs.create(
        scriptedRun('ask', [
          {
            tool_calls: [
              { name: 'ask', input: { prompt: 'Deploy when?', options: ['Now', 'Later'] } },
            ],
          },
          { final: 'deploying', expect: 'Now' },
        ]),
      );
      const multi = await f.ws.runs.create(
        scriptedRun('ask', [
          {
            tool_calls: [
              {
                name: 'ask',
                input: { prompt: 'Which regions?', options: ['eu', 'us', 'ap'], multi: true },
              },
            ],
          },
          { final: 'two regions', expect: ['eu', 'us'] },
        ]),
      );
      const cleanupCard = f.page.getByRole('article', {
        name: `Approval for bash rm -rf ./build && curl -sO https://example.com/x.tgz, run ${cleanup.id}, task t1`,
      });
      const singleCard = f.page.getByRole('article', {
        name: `Question "Deploy when?", run ${single.id}, task t1`,
      });
      const multiCard = f.page.getByRole('article', {
        name: `Question "Which regions?", run ${multi.id}, task t1`,
      });
      // The list shows a dense row for each; a row opens its card in the detail pane.
      const open = (runId: string) =>
        f.page.locator(`.list [data-decision="${runId}/t1"] .open`).click();
      for (const id of [cleanup.id, single.id, multi.id]) {
        await f.page.locator(`.list [data-decision="${id}/t1"]`).waitFor();
      }
      await open(single.id);
      await singleCard.waitFor();
      // A question with options takes one of them, never free text.
      await expect(singleCard.getByRole('textbox').count()).resolves.toBe(0);
      await expect(singleCard.getByRole('radio').count()).resolves.toBe(2);
      await open(multi.id);
      await multiCard.waitFor();
      await expect(multiCard.getByRole('textbox').count()).resolves.toBe(0);
      await expect(multiCard.getByRole('checkbox').count()).resolves.toBe(3);
      await open(cleanup.id);
      await cleanupCard.waitFor();

      const text = (await cleanupCard.textContent()) ?? '';
      expect(text).toContain('$ rm -rf ./build && curl -sO https://example.com/x.tgz');
      expect(text).toContain('delete');
      expect(text).toContain('network');
      expect(text).toContain('#1 ask bash when command matches "*rm -rf*"');
      await cleanupCard
        .getByRole('button', {
          name: `Approve bash rm -rf ./build && curl -sO https://example.com/x.tgz (run ${cleanup.id}, task t1)`,
          exact: true,
        })
        .waitFor();
      await cleanupCard.getByRole('button', { name: `Deny bash rm -rf`, exact: false }).waitFor();

      expect(await axeViolations(f.page)).toEqual([]);
      await saveScreenshot(f.page, 'inbox.png');

      await open(single.id);
      await singleCard.getByRole('radio', { name: 'Now' }).check();
      // While the answer is on its way its buttons are disabled: the focus stays on the card.
      const answerRoute = /\/tasks\/t1\/resolution$/;
      let release = () => {};
      let arrived = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const sent = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      await f.page.route(answerRoute, async (route) => {
        arrived();
        await held;
        await route.continue();
      });
      await singleCard.getByRole('button', { name: /^Answer/ }).focus();
      await f.page.keyboard.press('Enter');
      await sent;
      expect(
        await f.page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? null),
      ).toBe(`Question "Deploy when?", run ${single.id}, task t1`);
      await expect(singleCard.getAttribute('aria-busy')).resolves.toBe('true');
      release();
      await singleCard.waitFor({ state: 'detached' });
      await f.page.unroute(answerRoute);
      expect(await f.ended(single.id)).toMatchObject({
        state: 'completed',
        final_answer: 'deploying',
      });

      await open(multi.id);
      await multiCard.getByRole('checkbox', { name: 'eu' }).check();
      await multiCard.getByRole('checkbox', { name: 'us' }).check();
      await multiCard.getByRole('button', { name: /^Answer/ }).click();
      await multiCard.waitFor({ state: 'detached' });
      expect(await f.ended(multi.id)).toMatchObject({
        state: 'completed',
        final_answer: 'two regions',
      });

      // Approving leaves a line that links to the run's story.
      await open(cleanup.id);
      await cleanupCard.getByRole('button', { name: /^Approve/ }).click();
      await cleanupCard.waitFor({ state: 'detached' });
      const line = f.page.locator(`.after[data-after="${cleanup.id}/t1"]`);
      await line.waitFor();
      expect(await line.textContent()).toContain('Approved by you; running.');
      expect(await f.ended(cleanup.id)).toMatchObject({
        state: 'completed',
        final_answer: 'The build directory is clean.',
      });
      expect(f.executed).toEqual(['rm -rf ./build && curl -sO https://example.com/x.tgz']);
      await line.getByRole('link', { name: 'See the run' }).click();
      const story = f.page.locator('.run-view');
      await story.locator('.run-summary[data-state="completed"]').waitFor();
      const row = story.locator('.row[data-task="t1"]');
      await row.locator('.decision[data-outcome="approved"]').waitFor();
      expect(await row.textContent()).toMatch(/approved by test member/);
      expect(await row.textContent()).toContain('The model read: removed');
      expect(await axeViolations(f.page)).toEqual([]);
      await f.page.getByRole('link', { name: 'Waiting', exact: true }).click();
      await f.page.locator('.status[data-status="live"]').waitFor();
    });

    it('shows what will run: every command, hidden characters and padding as marks, the end in view', async () => {
      const tricky = await f.ws.runs.create(
        scriptedRun('ask', [
          {
            tool_calls: [
              {
                name: 'bash',
                input: {
                  command: `ls -la${'\n'.repeat(300)}rm -rf /`,
                  cmd: 'echo "\u2067"; rm -rf ~; echo "#\u2069"',
                },
              },
            ],
          },
          { final: 'done' },
        ]),
      );
      const card = f.page.locator(`.list [data-decision="${tricky.id}/t1"]`);
      await card.waitFor();
      const row = (await card.textContent()) ?? '';
      expect(row).toContain('rm -rf /');
      expect(row).toContain('⟨U+2067⟩');
      await card.locator('.open').click();
      const detail = f.page.locator('.detail article');
      await detail.locator('.input .warning').first().waitFor();
      const text = (await detail.textContent()) ?? '';
      expect(text).toContain('⟨299 empty lines⟩');
      expect(text).toContain('rm -rf /');
      expect(text).toContain('cmd: $ echo "⟨U+2067⟩"; rm -rf ~; echo "#⟨U+2069⟩"');
      expect(text).toContain('names 2 commands (command, cmd)');
      expect(text).toContain('characters that change how text reads');
      // The whole card fits where a person reads it: no screens of blank lines before Approve.
      const box = await detail.boundingBox();
      expect(box?.height ?? Number.POSITIVE_INFINITY).toBeLessThan(2000);
      const [decision] = (await f.ws.decisions.list()).filter((d) => d.run_id === tricky.id);
      if (!decision?.isApproval()) throw new Error('expected a parked call');
      await decision.deny({ reason: 'tricky' });
      await card.waitFor({ state: 'detached' });
    });

    it('removes a card decided elsewhere, live', async () => {
      const other = await f.ws.runs.create(
        scriptedRun('ask', [
          { tool_calls: [{ name: 'write', input: { path: 'config/deploy.yaml', content: 'x' } }] },
          { final: 'not written' },
        ]),
      );
      const card = f.page.locator(`.list [data-decision="${other.id}/t1"]`);
      await card.waitFor();
      await card.locator('.open').click();
      expect(await f.page.locator('.detail article').textContent()).toContain('Parked by mode ask');
      const [elsewhere] = (await f.ws.decisions.list()).filter((d) => d.run_id === other.id);
      if (!elsewhere?.isApproval()) throw new Error('expected a parked call');
      await elsewhere.deny({ reason: 'not today' });
      await card.waitFor({ state: 'detached' });
    });

    it('sends a deny reason and a free-text answer with Enter', async () => {
      const publish = await f.ws.runs.create(
        scriptedRun('ask', [
          { tool_calls: [{ name: 'publish', input: { package: '@acme/app', tag: 'latest' } }] },
          { final: 'held back', expect: 'wait for the release review' },
        ]),
      );
      const row = f.page.locator(`.list [data-decision="${publish.id}/t1"]`);
      await row.locator('.open').click();
      const card = f.page.locator('.detail article');
      await card.getByRole('textbox', { name: /^deny reason/ }).fill('wait for the release review');
      await card.getByRole('textbox', { name: /^deny reason/ }).press('Enter');
      await row.waitFor({ state: 'detached' });
      expect(await f.ended(publish.id)).toMatchObject({
        state: 'completed',
        final_answer: 'held back',
      });

      const named = await f.ws.runs.create(
        scriptedRun('ask', [
          { tool_calls: [{ name: 'ask', input: { prompt: 'Name the release' } }] },
          { final: 'named', expect: 'spring-26' },
        ]),
      );
      const questionRow = f.page.locator(`.list [data-decision="${named.id}/t1"]`);
      await questionRow.locator('.open').click();
      const question = f.page.getByRole('article', {
        name: `Question "Name the release", run ${named.id}, task t1`,
      });
      await question.waitFor();
      expect(await axeViolations(f.page)).toEqual([]);
      await question.getByRole('textbox', { name: /^answer to/ }).fill('spring-26');
      await question.getByRole('textbox', { name: /^answer to/ }).press('Enter');
      await questionRow.waitFor({ state: 'detached' });
      expect(await f.ended(named.id)).toMatchObject({ state: 'completed', final_answer: 'named' });
    });

    it('offers approve-and-remember with the rule it saves; the next identical call is granted', async () => {
      const supervised = () => ({
        approval_mode: 'bypass' as const,
        input: 'push it',
        tool_manifest: [
          { name: 'bash', input_schema: { type: 'object' }, risk_traits: ['execute' as const] },
        ],
        permission_rule_set: 'supervised',
        provider: {
          kind: 'scripted' as const,
          rounds: [
            { tool_calls: [{ name: 'bash', input: { command: 'git push origin main' } }] },
            { final: 'pushed', expect: 'removed' },
          ],
        },
      });
      await f.page.goto(`${f.kernel.url}/#/`);
      await f.page.locator('.status[data-status="live"]').waitFor();
      const first = await f.ws.runs.create(supervised());
      const firstRow = f.page.locator(`.list [data-decision="${first.id}/t1"]`);
      await firstRow.locator('.open').click();
      const card = f.page.locator('.detail article');
      expect(await card.locator('.why-layer').textContent()).toContain(
        'Parked by the rule set layer, rule set supervised',
      );
      const words = card.locator('.remember-rule');
      expect(await words.textContent()).toContain('exactly this call (bash git push origin main)');
      expect(await words.textContent()).toContain('rule set supervised');
      await card.getByLabel('where to remember the approval').selectOption('user');
      expect(await words.textContent()).toContain('for you, in every run you start');
      expect(await axeViolations(f.page)).toEqual([]);
      await card.getByRole('button', { name: /^Approve and remember/ }).click();
      await firstRow.waitFor({ state: 'detached' });
      expect(await f.ended(first.id)).toMatchObject({ state: 'completed', final_answer: 'pushed' });

      // The same call again: the user overlay now allows it, so nothing parks.
      const second = await f.ws.runs.create(supervised());
      expect(await f.ended(second.id)).toMatchObject({
        state: 'completed',
        final_answer: 'pushed',
      });
      const row = await f.ws.runs.run(second.id).task('t1');
      expect(row.decided_by).toBeNull();
      expect(row.state).toBe('succeeded');
    });
  },
);
