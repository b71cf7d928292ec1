import { describe, expect, it } from 'vitest';
import { waitFor } from '../testing/harness.js';
import {
  closeAfterEach,
  deployWithChannels,
  FAST_DELIVERY,
  freePort,
  type NotifyDeployment,
} from '../testing/notify-kit.js';
import { fieldsOf, press, SIGNING_SECRET, signed, startSlack } from '../testing/slack-kit.js';
import { bodyOf, startSmtp } from '../testing/smtp-receiver.js';
import { backends } from '../testing/stores.js';

/**
 * A call that starts waiting for people again at a new version (an edit that still parks, an
 * expired park retried, a row readdressed) makes the buttons and links already sent stale:
 * they are bound to the version they showed. The channels hear of the call again, showing it
 * as it now stands, with buttons and links for the version that waits.
 */

const all = await backends();
const LINK_SECRET = 'u3Jx9mQ2vL8pT5wR1zK7cN4bH6yF0aDe';

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a call waiting again is notified again (${backend.name})`,
    () => {
      let d: NotifyDeployment | undefined;
      const closers = closeAfterEach(() => d);

      async function deploy(clock?: () => number) {
        const slack = await startSlack();
        const smtp = await startSmtp();
        closers.push(slack.close, smtp.close);
        d = await deployWithChannels(
          backend,
          ({ workspaceId, memberCredentialId, otherMemberCredentialId }) => ({
            channels: [
              {
                name: 'approvals',
                kind: 'slack',
                workspace: workspaceId,
                token: 'xoxb-test-token',
                signing_secret: SIGNING_SECRET,
                channel: 'C123',
                api_url: `${slack.url}/api/`,
                members: { U_ALICE: memberCredentialId, U_BOB: otherMemberCredentialId },
              },
              {
                name: 'mail',
                kind: 'email',
                workspace: workspaceId,
                smtp: { host: '127.0.0.1', port: smtp.port },
                from: 'airlock@example.com',
                to: ['bob@example.com'],
                action_links: {
                  secret: LINK_SECRET,
                  members: { 'bob@example.com': otherMemberCredentialId },
                },
              },
            ],
          }),
          { port: await freePort(), notificationTuning: FAST_DELIVERY, clock },
        );
        const endpoint = `${d.url}/notifications/slack/${d.workspaceId}/approvals/interactions`;
        /** The `n`th Slack post (from 1) with buttons. */
        const post = (n: number) =>
          waitFor(
            async () =>
              slack.received.filter(
                (r) => r.path === '/api/chat.postMessage' && r.body.includes('airlock_approve'),
              )[n - 1],
            { what: `Slack post ${n}` },
          );
        /** The approve link of the `n`th mail (from 1) that has one. */
        const approveLink = (n: number) =>
          waitFor(
            async () =>
              smtp.mails
                .map((mail) => /Approve: (\S+)/.exec(bodyOf(mail.raw))?.[1])
                .filter(Boolean)[n - 1],
            { what: `approve link ${n}` },
          );
        const pressAs = async (message: Record<string, unknown>, user: string) => {
          const body = press(message, 'airlock_approve', user);
          return fetch(endpoint, { method: 'POST', headers: signed(body), body });
        };
        /** The first update Slack received of the message with `ts`. */
        const updateOf = (ts: string) =>
          waitFor(
            async () =>
              slack.received
                .filter((r) => r.path === '/api/chat.update')
                .map(fieldsOf)
                .find((update) => update.ts === ts),
            { what: `an update of message ${ts}` },
          );
        return { post, approveLink, pressAs, updateOf, slack };
      }

      const task = async (runId: string) =>
        (await d!.member.get(`${d!.ws}/runs/${runId}/tasks/t1`)).body;

      it('an edit that still parks is posted again as edited; only its new button counts', async () => {
        const { post, pressAs } = await deploy();
        await d!.member.put(`${d!.ws}/approval_policy`, {
          policy: { rules: [{ actions: ['destructive'], required: 2 }] },
        });
        const runId = await d!.park();
        const first = fieldsOf(await post(1));
        const { version } = await task(runId);
        const edited = await d!.member.post(`${d!.ws}/runs/${runId}/tasks/t1/approve`, {
          version,
          tool_input: { command: 'rm -rf /tmp/edited' },
        });
        expect(edited.status).toBe(200);
        const now = await task(runId);
        expect(now.state).toBe('needs_approval');
        const second = fieldsOf(await post(2));
        expect(second.text).toBe('Approval needed for the edited call: bash');
        const shown = JSON.stringify(second.blocks);
        expect(shown).toContain('rm -rf /tmp/edited');
        expect(shown).toContain(now.version);
        // The button of the first post showed the call before the edit: it changes nothing.
        expect((await pressAs(first, 'U_BOB')).status).toBe(200);
        expect((await task(runId)).approvals.received).toHaveLength(1);
        expect((await pressAs(second, 'U_BOB')).status).toBe(200);
        const approved = await task(runId);
        expect(approved.state).toBe('runnable');
        expect(approved.tool_input).toEqual({ command: 'rm -rf /tmp/edited' });
      });

      it('an expired park retried is mailed again, and its new link decides', async () => {
        // The park expires by moving the kernel's clock a day on, not by a short TTL: the retried
        // park waits the default day again, so its mail comes and its link is used in time however
        // loaded the machine (at 1 s the link sometimes came after the deadline; 3 s was waited out).
        let ahead = 0;
        const { approveLink } = await deploy(() => Date.now() + ahead);
        const answer = await d!.agent.post(`${d!.ws}/runs`, {
          approval_mode: 'ask',
          input: 'retry',
          on_failure: 'hold',
          provider: {
            kind: 'scripted',
            rounds: [
              { tool_calls: [{ name: 'bash', input: { command: 'rm -rf /tmp/x' } }] },
              { final: 'done' },
            ],
          },
        });
        const runId = answer.body.id as string;
        const stale = await approveLink(1);
        ahead = 25 * 3_600_000;
        await waitFor(async () => (await task(runId)).state === 'timed_out', { what: 'expiry' });
        const retried = await d!.member.post(`${d!.ws}/runs/${runId}/tasks/t1/retry`);
        expect(retried.status).toBe(200);
        expect((await task(runId)).state).toBe('needs_approval');
        const fresh = await approveLink(2);
        expect(fresh).not.toBe(stale);
        expect((await fetch(fresh, { method: 'POST' })).status).toBe(200);
        expect((await task(runId)).decided_by).toBe(`member:${d!.otherMember.credentialId}`);
      });

      it('a park readdressed when its last executor credential is revoked is posted again, its first message settled', async () => {
        const { post, pressAs, updateOf, slack } = await deploy();
        const runId = await d!.park();
        await post(1);
        const credentials = (await d!.member.get(`${d!.ws}/credentials`)).body.credentials as {
          credential_id: string;
          kind: string;
        }[];
        const executor = credentials.find((c) => c.kind === 'executor')!;
        const revoked = await d!.member.post(
          `${d!.ws}/credentials/${executor.credential_id}/revoke`,
        );
        expect(revoked.status).toBe(200);
        const second = fieldsOf(await post(2));
        expect(second.text).toBe('Approval needed again: bash');
        expect(JSON.stringify(second.blocks)).toContain((await task(runId)).version);
        // The first message's buttons were bound to the version before: they are gone.
        const settled = await updateOf(slack.posts[0]!.ts);
        expect(JSON.stringify(settled.blocks)).toContain('Its executor was revoked');
        expect(JSON.stringify(settled.blocks)).not.toContain('airlock_approve');
        expect((await pressAs(second, 'U_BOB')).status).toBe(200);
        expect((await task(runId)).state).toBe('runnable');
      });
    },
  );
}
