import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../testing/harness.js';
import {
  closeAfterEach,
  deployWithChannels,
  failedDelivery,
  freePort,
  type NotifyDeployment,
} from '../testing/notify-kit.js';
import { backends } from '../testing/stores.js';

const all = await backends();
const FAST = { pollMs: 50, backoff: { baseMs: 20, capMs: 100 } };

interface Mail {
  from: string;
  to: string[];
  raw: string;
}

/**
 * A real SMTP server on loopback (smtp-server), keeping every message it
 * accepts; it never answers the RCPT TO of the `stalls` address.
 */
async function startSmtp(
  stalls?: string,
): Promise<{ port: number; mails: Mail[]; close(): Promise<void> }> {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    closeTimeout: 100,
    onRcptTo(address, _session, callback) {
      if (address.address !== stalls) callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The text body of a plain-text message, soft line breaks of quoted-printable undone. */
function bodyOf(raw: string): string {
  const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  return /quoted-printable/i.test(raw)
    ? body
        .replace(/=\r\n/g, '')
        .replace(/=([0-9A-F]{2})/g, (_, hex) => String.fromCharCode(Number.parseInt(hex, 16)))
    : body;
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`email notifications (${backend.name})`, () => {
    let d: NotifyDeployment | undefined;
    const closers = closeAfterEach(() => d);

    async function deployEmail(
      actionLinks: boolean,
      options: { to?: string[]; stalls?: string; leaseMs?: number } = {},
    ) {
      const smtp = await startSmtp(options.stalls);
      closers.push(smtp.close);
      d = await deployWithChannels(
        backend,
        ({ workspaceId, memberCredentialId, otherMemberCredentialId }) => ({
          channels: [
            {
              name: 'mail',
              kind: 'email',
              workspace: workspaceId,
              smtp: { host: '127.0.0.1', port: smtp.port },
              from: 'airlock@example.com',
              to: options.to ?? ['alice@example.com'],
              ...(actionLinks
                ? {
                    action_links: {
                      secret: 'action-link-secret',
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
        { port: await freePort(), notificationTuning: { ...FAST, leaseMs: options.leaseMs } },
      );
      return smtp;
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

    it('with action links on, the approve link asks first, decides once as the mapped member, then refuses', async () => {
      const smtp = await deployEmail(true);
      const runId = await d!.park();
      const mail = await waitFor(async () => smtp.mails[0]);
      const text = bodyOf(mail.raw);
      const approve = /Approve: (\S+)/.exec(text)![1]!;
      // Following the link (as a mail scanner would) decides nothing.
      const confirm = await fetch(approve);
      expect(confirm.status).toBe(200);
      expect(await confirm.text()).toContain('<form method="post">');
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
  });
}
