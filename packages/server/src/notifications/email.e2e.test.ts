import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../testing/harness.js';
import {
  closeAfterEach,
  deployWithChannels,
  FAST_DELIVERY,
  failedDelivery,
  freePort,
  type NotifyDeployment,
} from '../testing/notify-kit.js';
import { bodyOf, type Stall, startSmtp } from '../testing/smtp-receiver.js';
import { backends } from '../testing/stores.js';
import { signActionLink } from './action-links.js';

const all = await backends();
const LINK_SECRET = 'u3Jx9mQ2vL8pT5wR1zK7cN4bH6yF0aDe';

/**
 * A loopback relay in front of an SMTP server that counts the kernel's connections: one the kernel
 * closed brings no more mail, so a test waits for that rather than for a stalled answer's time.
 */
async function smtpRelay(port: number) {
  let opened = 0;
  let open = 0;
  const sockets = new Set<Socket>();
  const server = createServer((kernel) => {
    opened += 1;
    open += 1;
    const upstream = connect(port, '127.0.0.1');
    for (const socket of [kernel, upstream]) {
      sockets.add(socket);
      socket.on('error', () => socket.destroy());
    }
    kernel.pipe(upstream);
    upstream.pipe(kernel);
    kernel.on('close', () => {
      open -= 1;
      upstream.destroy();
    });
    upstream.on('close', () => kernel.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    /** Connections the kernel made so far, and how many of them it has not closed. */
    opened: () => opened,
    open: () => open,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
/** An address of this machine off loopback, where the kernel requires STARTTLS; none in a sandbox without one. */
const OFF_LOOPBACK = Object.values(networkInterfaces())
  .flat()
  .find((address) => address?.family === 'IPv4' && !address.internal)?.address;

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`email notifications (${backend.name})`, () => {
    let d: NotifyDeployment | undefined;
    const closers = closeAfterEach(() => d);

    async function deployEmail(
      actionLinks: boolean,
      options: {
        to?: string[];
        stalls?: Stall;
        leaseMs?: number;
        stopGraceMs?: number;
        host?: string;
        allowPlaintext?: boolean;
        /** Through a relay counting the kernel's connections (loopback only). */
        relayed?: boolean;
      } = {},
    ) {
      const host = options.host ?? '127.0.0.1';
      const smtp = await startSmtp(options.stalls, host);
      closers.push(smtp.close);
      const relay = options.relayed ? await smtpRelay(smtp.port) : undefined;
      if (relay) closers.push(relay.close);
      d = await deployWithChannels(
        backend,
        ({ workspaceId, memberCredentialId, otherMemberCredentialId }) => ({
          channels: [
            {
              name: 'mail',
              kind: 'email',
              workspace: workspaceId,
              smtp: {
                host,
                port: relay?.port ?? smtp.port,
                ...(options.allowPlaintext ? { allow_plaintext: true } : {}),
              },
              from: 'airlock@example.com',
              to: options.to ?? ['alice@example.com'],
              ...(actionLinks
                ? {
                    action_links: {
                      secret: LINK_SECRET,
                      members: {
                        'alice@example.com': memberCredentialId,
                        'bob@example.com': otherMemberCredentialId,
                      },
                    },
                  }
                : {}),
            },
          ],
        }),
        {
          port: await freePort(),
          notificationTuning: {
            ...FAST_DELIVERY,
            ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
            ...(options.stopGraceMs === undefined ? {} : { stopGraceMs: options.stopGraceMs }),
          },
        },
      );
      return { ...smtp, relay };
    }

    it('sends a readable message with the call and a link to its card, which opens', async () => {
      const smtp = await deployEmail(false);
      const runId = await d!.park();
      const mail = await waitFor(async () => smtp.mails[0]);
      expect(mail.to).toEqual(['alice@example.com']);
      expect(mail.raw).toContain('Subject: [Airlock] Approval needed: bash');
      const text = bodyOf(mail.raw);
      expect(text).toContain('Tool: bash');
      expect(text).toContain('rm -rf /tmp/x');
      expect(text).toContain('Action tags: delete, destructive');
      expect(text).not.toContain('Approve:');
      const link = /Open it in the inbox: (\S+)/.exec(text)![1]!;
      expect(link).toBe(`${d!.url}/#/runs/${runId}`);
      const page = await fetch(link);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<html');
      await waitFor(async () => (await d!.events(runId, 'notification.delivered'))[0]);
    });

    it('the confirmation shows the call with its hidden characters escaped', async () => {
      const smtp = await deployEmail(true);
      await d!.park({
        name: 'bash',
        input: { command: 'echo "\u2067"; rm -rf ~; echo "#\u2069"' },
      });
      const mail = await waitFor(async () => smtp.mails[0]);
      const approve = /Approve: (\S+)/.exec(bodyOf(mail.raw))![1]!;
      const html = await (await fetch(approve)).text();
      expect(html).toContain('rm -rf ~');
      expect(html).toContain('⟨U+2067⟩');
      expect(html).not.toContain('\u2067');
    });

    it('with action links on, the approve link asks first, decides once as the mapped member, then refuses', async () => {
      const smtp = await deployEmail(true);
      const runId = await d!.park();
      const mail = await waitFor(async () => smtp.mails[0]);
      const text = bodyOf(mail.raw);
      const approve = /Approve: (\S+)/.exec(text)![1]!;
      // Following the link (as a mail scanner would) decides nothing.
      const confirm = await fetch(approve);
      expect(confirm.status).toBe(200);
      const html = await confirm.text();
      expect(html).toContain('<form method="post">');
      // No other page may frame its one button, and it shows the call it decides.
      expect(confirm.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(confirm.headers.get('x-frame-options')).toBe('DENY');
      expect(html).toContain('<p>Tool <code>');
      expect((await d!.member.get(`${d!.ws}/runs/${runId}/tasks/t1`)).body.state).toBe(
        'needs_approval',
      );
      const decided = await fetch(approve, { method: 'POST' });
      expect(decided.status).toBe(200);
      expect(await decided.text()).toContain(`member:${d!.memberCredentialId}`);
      const task = (await d!.member.get(`${d!.ws}/runs/${runId}/tasks/t1`)).body;
      expect(task.decided_by).toBe(`member:${d!.memberCredentialId}`);
      const twice = await fetch(approve, { method: 'POST' });
      expect(twice.status).toBe(409);
      // A tampered link is refused whole.
      const tampered = `${approve.slice(0, -3)}abc`;
      expect((await fetch(tampered, { method: 'POST' })).status).toBe(403);
    });

    it('the page of a link whose call changed or was decided since offers no button', async () => {
      const smtp = await deployEmail(true);
      await d!.member.put(`${d!.ws}/approval_policy`, {
        policy: { rules: [{ actions: ['destructive'], required: 2 }] },
      });
      const runId = await d!.park();
      const approve = /Approve: (\S+)/.exec(
        bodyOf((await waitFor(async () => smtp.mails[0])).raw),
      )![1]!;
      const { version } = (await d!.member.get(`${d!.ws}/runs/${runId}/tasks/t1`)).body;
      // Another member edits the call: it still waits, at a new version the link is not bound to.
      const edited = await d!.otherMember.client.post(`${d!.ws}/runs/${runId}/tasks/t1/approve`, {
        version,
        tool_input: { command: 'rm -rf /tmp/edited' },
      });
      expect(edited.status).toBe(200);
      const page = await fetch(approve);
      expect(page.status).toBe(409);
      const html = await page.text();
      // Not the edited call under a button that would only answer version_mismatch.
      expect(html).not.toContain('<form');
      expect(html).not.toContain('/tmp/edited');
      expect(html).toContain('no longer applies');
      await d!.member.post(`${d!.ws}/runs/${runId}/tasks/t1/deny`, {});
      expect((await fetch(approve)).status).toBe(409);
    });

    it('a link signed for a member the channel maps no recipient to decides nothing', async () => {
      const smtp = await deployEmail(true);
      const runId = await d!.park();
      const mail = await waitFor(async () => smtp.mails[0]);
      const approve = /Approve: (\S+)/.exec(bodyOf(mail.raw))![1]!;
      const token = approve.slice(approve.lastIndexOf('/') + 1);
      const claim = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8'));
      const forged = signActionLink(LINK_SECRET, { ...claim, member: 'cred_nobody_mapped' });
      const answer = await fetch(`${approve.slice(0, approve.lastIndexOf('/') + 1)}${forged}`, {
        method: 'POST',
      });
      expect(answer.status).toBe(403);
      expect((await d!.member.get(`${d!.ws}/runs/${runId}/tasks/t1`)).body.state).toBe(
        'needs_approval',
      );
    });

    it.skipIf(OFF_LOOPBACK === undefined)(
      'off loopback, a server without STARTTLS gets no mail unless the channel allows plain text',
      async () => {
        const refused = await deployEmail(true, { host: OFF_LOOPBACK });
        await d!.park();
        const failed = await failedDelivery(d!, { timeoutMs: 4000 });
        expect(failed.last_error).toMatch(/TLS/i);
        expect(refused.mails).toHaveLength(0);
        await d!.close();
        d = undefined;

        const allowed = await deployEmail(false, { host: OFF_LOOPBACK, allowPlaintext: true });
        await d!.park();
        const mail = await waitFor(async () => allowed.mails[0]);
        expect(mail.to).toEqual(['alice@example.com']);
      },
    );

    it('sends to every recipient at once, and a server that stalls on one ends the attempt at its deadline', async () => {
      const smtp = await deployEmail(false, {
        to: ['slow@example.com', 'alice@example.com'],
        stalls: 'slow@example.com',
        leaseMs: 2000,
      });
      await d!.park();
      const mail = await waitFor(async () => smtp.mails[0], { timeoutMs: 3000 });
      expect(mail.to).toEqual(['alice@example.com']);
      const failed = await failedDelivery(d!, { timeoutMs: 4000 });
      expect(failed.last_error).toMatch(/deadline of 1000 ms/);
    });

    it('a recipient the server refuses is tried again alone: the others get the notice once', async () => {
      const smtp = await deployEmail(false, { to: ['bounce@example.com', 'alice@example.com'] });
      smtp.refused.add('bounce@example.com');
      await d!.park();
      const retried = await waitFor(
        async () => {
          const listed = await d!.member.get(`${d!.ws}/notifications?state=pending`);
          return (listed.body.deliveries as { attempts: number; last_error: string | null }[]).find(
            (delivery) => delivery.attempts >= 3,
          );
        },
        { what: 'three attempts' },
      );
      expect(retried.last_error).toContain('bounce@example.com');
      expect(retried.last_error).not.toContain('alice@example.com');
      smtp.refused.delete('bounce@example.com');
      await waitFor(async () => smtp.mails.length === 2, { what: 'the refused recipient reached' });
      await d!.airlock.notifications!.worker.idle();
      expect(smtp.mails.map((mail) => mail.to[0]).sort()).toEqual([
        'alice@example.com',
        'bounce@example.com',
      ]);
      const listed = await d!.member.get(`${d!.ws}/notifications`);
      expect((listed.body.deliveries as { state: string }[]).map((x) => x.state)).toEqual([
        'delivered',
      ]);
    });

    it('a send stalled past its deadline is cancelled, not sent again beside its retry', async () => {
      const smtp = await deployEmail(false, {
        stalls: { address: 'alice@example.com', firstAnswerAfterMs: 2500 },
        leaseMs: 2000,
        relayed: true,
      });
      const runId = await d!.park();
      await waitFor(async () => (await d!.events(runId, 'notification.delivered'))[0], {
        timeoutMs: 5000,
      });
      // Every connection of the kernel ended: the cut-short send's, had it gone on, would have
      // stayed open until the server's answer at 2.5 s and its message been sent then.
      const relay = smtp.relay!;
      await waitFor(async () => relay.opened() === 2 && relay.open() === 0, {
        what: 'both sends ended',
      });
      expect(smtp.mails).toHaveLength(1);
    });

    it('stop cancels a send in flight: it is not sent once the kernel has stopped', async () => {
      const smtp = await deployEmail(false, {
        stalls: { address: 'alice@example.com', firstAnswerAfterMs: 1000 },
        stopGraceMs: 100,
        relayed: true,
      });
      const relay = smtp.relay!;
      await d!.park();
      await waitFor(async () => relay.opened() === 1, { what: 'the send under way' });
      await d!.airlock.notifications!.close();
      const left = await failedDelivery(d!, { timeoutMs: 0 });
      expect(left.last_error).toMatch(/stopped/);
      // A cut by a shutdown is no attempt that counts toward the dead letter.
      expect(left.attempts).toBe(0);
      // The send's connection ended: had it gone on, it would have sent the message at 1 s.
      await waitFor(async () => relay.open() === 0, { what: 'the send ended' });
      expect(relay.opened()).toBe(1);
      expect(smtp.mails).toHaveLength(0);
    });

    it('under a policy needing two approvals, the first link records "1 of 2" and the second decides', async () => {
      const smtp = await deployEmail(true, { to: ['alice@example.com', 'bob@example.com'] });
      const policy = await d!.member.put(`${d!.ws}/approval_policy`, {
        policy: { rules: [{ actions: ['destructive'], required: 2 }] },
      });
      expect(policy.status).toBe(200);
      const runId = await d!.park();
      await waitFor(async () => smtp.mails.length === 2);
      const linkOf = (to: string) =>
        /Approve: (\S+)/.exec(bodyOf(smtp.mails.find((m) => m.to[0] === to)!.raw))![1]!;
      const first = await fetch(linkOf('alice@example.com'), { method: 'POST' });
      expect(first.status).toBe(200);
      const page = await first.text();
      expect(page).toContain('1 of 2 approvals');
      expect(page).not.toContain('<h1>Approved</h1>');
      expect((await d!.member.get(`${d!.ws}/runs/${runId}/tasks/t1`)).body.state).toBe(
        'needs_approval',
      );
      const second = await fetch(linkOf('bob@example.com'), { method: 'POST' });
      expect(second.status).toBe(200);
      expect(await second.text()).toContain('<h1>Approved</h1>');
      expect((await d!.member.get(`${d!.ws}/runs/${runId}/tasks/t1`)).body.state).not.toBe(
        'needs_approval',
      );
    });

    // PostgreSQL only: a second connection holds the run's lock while the row changes under a deny.
    it.skipIf(backend.name !== 'postgres')(
      'a deny link checks the version in the deny’s own transaction: a row changed meanwhile is not denied',
      async () => {
        const smtp = await deployEmail(true);
        const runId = await d!.park();
        const mail = await waitFor(async () => smtp.mails[0]);
        const deny = /Deny: (\S+)/.exec(bodyOf(mail.raw))![1]!;
        const db = new pg.Client({ connectionString: d!.databaseUrl });
        await db.connect();
        try {
          await db.query('begin');
          await db.query('select id from runs where id = $1 for update', [runId]);
          // The deny reads the row as shown, then waits for the run's lock.
          const denied = fetch(deny, { method: 'POST' });
          await new Promise((resolve) => setTimeout(resolve, 500));
          // Meanwhile the row changes (a new version) and still waits for approval.
          await db.query(
            "update tasks set updated_at = updated_at + 1 where run_id = $1 and key = 't1'",
            [runId],
          );
          await db.query('commit');
          const answer = await denied;
          expect(answer.status).toBe(409);
          // The version_mismatch is told as a used link tells it: what happened to the call.
          expect(await answer.text()).toContain('The call changed since this mail was sent');
        } finally {
          await db.end();
        }
        expect((await d!.member.get(`${d!.ws}/runs/${runId}/tasks/t1`)).body.state).toBe(
          'needs_approval',
        );
      },
    );
  });
}
