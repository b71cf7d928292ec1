import { createClient } from '@airlock/sdk';
import { createCredential } from '@airlock/server';
import { describe, expect, it } from 'vitest';
import { browserSkipReason } from '../support/browser.js';
import { eventually, scriptedRun } from '../support/kernel.js';
import { drawnAt } from './drawn-at.js';
import { useInboxFixture } from './inbox-fixture.js';

/**
 * Right-to-left letters in text someone else wrote (a member's name, a deny reason) stay in
 * their own place: drawn in one run with the words and punctuation around them, two such texts
 * trade places ("denied by REASON :NAME"), and a person reads the reason as the name.
 */
describe.skipIf(browserSkipReason !== null)(
  'the web inbox in headless Chromium: right-to-left text from others',
  { timeout: 90_000 },
  () => {
    const f = useInboxFixture({ width: 1280, height: 800 });

    it("keeps a story row's name, colon and reason in order when both are right-to-left", async () => {
      const name = 'דנה כהן';
      const reason = 'לא עכשיו';
      const member = await createCredential(f.kernel.airlock.store, {
        workspaceId: f.kernel.workspace.id,
        kind: 'member',
        label: name,
      });
      const run = await f.ws.runs.create(
        scriptedRun('ask', [
          { tool_calls: [{ name: 'bash', input: { command: 'make dist' } }] },
          { final: 'done' },
        ]),
      );
      await eventually(
        async () => (await f.ws.runs.run(run.id).task('t1')).state === 'needs_approval',
      );
      const theirs = createClient({ url: f.kernel.url, token: member.token }).workspace(
        f.kernel.workspace.id,
      );
      const decision = await theirs.decisions.get(run.id, 't1');
      if (!decision?.isApproval()) throw new Error('t1 does not wait');
      await decision.deny({ reason });

      const page = await f.openSignedIn(`#/runs/${run.id}`);
      const line = page.locator('.run-view .row[data-task="t1"] .decision[data-outcome="denied"]');
      await line.filter({ hasText: reason }).waitFor();
      expect(await line.textContent()).toContain(`denied by ${name}: ${reason}`);
      const [words, named, colon, why] = await drawnAt(line, ['denied by', name, ': ', reason]);
      // Left to right as written: "denied by", the name, the colon, the reason.
      const order = [words, named, colon, why].map((box) => box!);
      for (let i = 1; i < order.length; i += 1) {
        expect(order[i]!.left).toBeGreaterThanOrEqual(order[i - 1]!.right - 0.5);
      }
    });

    it("keeps a card's approvers in the order they approved when their names are right-to-left", async () => {
      const names = ['יעל בר', 'רון לוי'];
      const members = [];
      for (const label of names) {
        members.push(
          await createCredential(f.kernel.airlock.store, {
            workspaceId: f.kernel.workspace.id,
            kind: 'member',
            label,
          }),
        );
      }
      const me = await f.ws.self();
      const put = await fetch(
        `${f.kernel.url}/api/v1/workspaces/${f.kernel.workspace.id}/approval_policy`,
        {
          method: 'PUT',
          headers: {
            authorization: `Bearer ${f.kernel.workspace.tokens.member}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({
            policy: {
              rules: [
                {
                  tool: 'release',
                  approvers: [
                    me.credential_id,
                    ...members.map((member) => member.credential.credential_id),
                  ],
                  required: 3,
                },
              ],
            },
          }),
        },
      );
      expect(put.status).toBe(200);
      const run = await f.ws.runs.create(
        scriptedRun('ask', [
          { tool_calls: [{ name: 'release', input: { version: '8.0.0' } }] },
          { final: 'done' },
        ]),
      );
      await eventually(
        async () => (await f.ws.runs.run(run.id).task('t1')).state === 'needs_approval',
      );
      for (const member of members) {
        const theirs = createClient({ url: f.kernel.url, token: member.token }).workspace(
          f.kernel.workspace.id,
        );
        const decision = await theirs.decisions.get(run.id, 't1');
        if (!decision?.isApproval()) throw new Error('t1 does not wait');
        await decision.approve();
      }

      const page = await f.openInbox();
      const key = `${run.id}/t1`;
      await page.locator(`.list [data-decision="${key}"] .open`).click();
      const approvals = page.locator(`.detail article[data-decision="${key}"] > .approvals`);
      await approvals.filter({ hasText: '2 of 3 approvals' }).waitFor();
      const order = await drawnAt(approvals, ['2 of 3 approvals', names[0]!, ', ', names[1]!]);
      for (let i = 1; i < order.length; i += 1) {
        expect(order[i]!.left).toBeGreaterThanOrEqual(order[i - 1]!.right - 0.5);
      }

      // The third approval completes the quorum: the story's line names all three, in order.
      const mine = await f.ws.decisions.get(run.id, 't1');
      if (!mine?.isApproval()) throw new Error('t1 does not wait');
      await mine.approve();
      await page.goto(`${f.kernel.url}/#/runs/${run.id}`);
      const approved = page.locator(
        '.run-view .row[data-task="t1"] .decision[data-outcome="approved"]',
      );
      await approved.waitFor();
      expect(await approved.textContent()).toContain(
        `: 3 of 3 approvals (${names[0]}, ${names[1]}, test member)`,
      );
      const story = await drawnAt(approved, ['3 of 3 approvals', names[0]!, ', ', names[1]!]);
      for (let i = 1; i < story.length; i += 1) {
        expect(story[i]!.left).toBeGreaterThanOrEqual(story[i - 1]!.right - 0.5);
      }
    });
  },
);
