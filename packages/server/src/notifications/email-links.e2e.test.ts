import { describe, expect, it } from 'vitest';
import { startAirlock } from '../airlock.js';
import { waitFor } from '../testing/harness.js';
import {
  closeAfterEach,
  deployWithChannels,
  FAST_DELIVERY,
  freePort,
  type NotifyDeployment,
} from '../testing/notify-kit.js';
import { bodyOf, startSmtp } from '../testing/smtp-receiver.js';
import { backends } from '../testing/stores.js';
import { parseNotificationsConfig } from './config.js';

const all = await backends();
const LINK_SECRET = 'k8Vd2pQx7rN4mZ1sT6wY9bC3fH5jL0aE';

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `email action links are single use (${backend.name})`,
    () => {
      let d: NotifyDeployment | undefined;
      const closers = closeAfterEach(() => d);

      /** A kernel mailing alice and bob their links, under a policy that wants two approvals. */
      async function deployTwoApprovers() {
        const smtp = await startSmtp();
        closers.push(smtp.close);
        let config: unknown;
        d = await deployWithChannels(
          backend,
          ({ workspaceId, memberCredentialId, otherMemberCredentialId }) => {
            config = {
              channels: [
                {
                  name: 'mail',
                  kind: 'email',
                  workspace: workspaceId,
                  smtp: { host: '127.0.0.1', port: smtp.port },
                  from: 'airlock@example.com',
                  to: ['alice@example.com', 'bob@example.com'],
                  action_links: {
                    secret: LINK_SECRET,
                    members: {
                      'alice@example.com': memberCredentialId,
                      'bob@example.com': otherMemberCredentialId,
                    },
                  },
                },
              ],
            };
            return config;
          },
          { port: await freePort(), notificationTuning: FAST_DELIVERY },
        );
        const policy = await d.member.put(`${d.ws}/approval_policy`, {
          policy: { rules: [{ actions: ['destructive'], required: 2 }] },
        });
        expect(policy.status).toBe(200);
        /** Parks a call and waits for its two mails; answers its links and how its row stands. */
        const parkOne = async () => {
          const runId = await d!.park();
          const mails = await waitFor(
            async () => {
              const ofRun = smtp.mails.filter((mail) => bodyOf(mail.raw).includes(runId));
              return ofRun.length === 2 ? ofRun : undefined;
            },
            { what: 'both mails' },
          );
          const linkOf = (to: string, verb: 'Approve' | 'Deny') =>
            new RegExp(`${verb}: (\\S+)`).exec(
              bodyOf(mails.find((mail) => mail.to[0] === to)!.raw),
            )![1]!;
          const state = async () =>
            (await d!.member.get(`${d!.ws}/runs/${runId}/tasks/t1`)).body as {
              state: string;
              approvals?: { received: unknown[] };
            };
          return { runId, linkOf, state };
        };
        const first = await parkOne();
        return { ...first, first, another: parkOne, config };
      }

      it('once a mail’s approve link counted, its deny link (leaked, forwarded) changes nothing', async () => {
        const { linkOf, state } = await deployTwoApprovers();
        const approved = await fetch(linkOf('alice@example.com', 'Approve'), { method: 'POST' });
        expect(approved.status).toBe(200);
        expect(await approved.text()).toContain('1 of 2 approvals');
        const deny = linkOf('alice@example.com', 'Deny');
        const page = await fetch(deny);
        expect(page.status).toBe(409);
        const html = await page.text();
        expect(html).not.toContain('<form');
        expect(html).toContain('already recorded');
        const denied = await fetch(deny, { method: 'POST' });
        expect(denied.status).toBe(409);
        expect(await denied.text()).toContain('already recorded');
        expect((await state()).state).toBe('needs_approval');
      });

      /**
       * Posts each round's approve and deny links of alice's mail at the same moment (the deny
       * to `denyOrigin` when given: another kernel), and checks that exactly one acted.
       */
      async function postTogether(
        rounds: Awaited<ReturnType<typeof deployTwoApprovers>>['first'][],
        denyOrigin?: string,
      ) {
        for (const round of rounds) {
          const [approved, denied] = await Promise.all(
            (['Approve', 'Deny'] as const).map(async (verb) => {
              const link = round.linkOf('alice@example.com', verb);
              const url = verb === 'Deny' && denyOrigin ? link.replace(d!.url, denyOrigin) : link;
              const answer = await fetch(url, { method: 'POST' });
              return { status: answer.status, html: await answer.text() };
            }),
          );
          const statuses = [approved!.status, denied!.status].sort();
          expect(statuses).toEqual([200, 409]);
          const row = await round.state();
          if (approved!.status === 200) {
            expect(row.state).toBe('needs_approval');
            expect(row.approvals?.received).toHaveLength(1);
            expect(denied!.html).toContain('already recorded');
          } else {
            expect(row.state).toBe('failed');
            expect(approved!.html).toContain('already decided');
            expect(approved!.html).toContain('Denied by');
          }
        }
      }

      it('a mail’s approve and deny links posted together: exactly one acts, the other says what happened', async () => {
        const mailed = await deployTwoApprovers();
        // Three calls, each mailing alice two links; both are posted at the same moment.
        await postTogether([mailed.first, await mailed.another(), await mailed.another()]);
      });

      it.skipIf(backend.name !== 'postgres')(
        'the two links posted together to two kernels of one database: exactly one acts',
        async () => {
          const mailed = await deployTwoApprovers();
          const second = await startAirlock({
            databaseUrl: d!.databaseUrl!,
            port: 0,
            rateLimit: null,
            authFailureLimit: null,
            notifications: parseNotificationsConfig(mailed.config),
            notificationTuning: FAST_DELIVERY,
          });
          closers.push(() => second.close());
          const rounds = [mailed.first, await mailed.another(), await mailed.another()];
          await postTogether(rounds, second.url);
        },
      );

      it('the same approve link posted twice at once counts once and says so the second time', async () => {
        const { first } = await deployTwoApprovers();
        const approve = first.linkOf('alice@example.com', 'Approve');
        const answers = await Promise.all(
          [1, 2].map(async () => {
            const answer = await fetch(approve, { method: 'POST' });
            return { status: answer.status, html: await answer.text() };
          }),
        );
        expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
        expect(answers.find((a) => a.status === 409)!.html).toContain('already recorded');
        const row = await first.state();
        expect(row.state).toBe('needs_approval');
        expect(row.approvals?.received).toHaveLength(1);
      });

      it('a used approve link, opened again, shows what it did and offers no button', async () => {
        const { linkOf, state } = await deployTwoApprovers();
        const approve = linkOf('alice@example.com', 'Approve');
        expect((await fetch(approve, { method: 'POST' })).status).toBe(200);
        const again = await fetch(approve);
        expect(again.status).toBe(409);
        const html = await again.text();
        expect(html).not.toContain('<form');
        expect(html).toContain('already recorded');
        expect(html).toContain('1 of 2 approvals');
        const posted = await fetch(approve, { method: 'POST' });
        expect(posted.status).toBe(409);
        expect((await state()).state).toBe('needs_approval');
        // The other member's link still works, once: it is theirs, and unused.
        const second = await fetch(linkOf('bob@example.com', 'Approve'), { method: 'POST' });
        expect(second.status).toBe(200);
        expect((await state()).state).not.toBe('needs_approval');
      });

      it('after the call was decided, a link shows what became of it', async () => {
        const { linkOf } = await deployTwoApprovers();
        expect((await fetch(linkOf('bob@example.com', 'Deny'), { method: 'POST' })).status).toBe(
          200,
        );
        const page = await fetch(linkOf('alice@example.com', 'Approve'));
        expect(page.status).toBe(409);
        const html = await page.text();
        expect(html).not.toContain('<form');
        expect(html).toContain(`Denied by member:${d!.otherMember.credentialId}`);
      });
    },
  );
}
