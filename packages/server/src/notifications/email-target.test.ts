import type { AddressInfo } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import type { RunView } from '@airlock/core';
import { afterEach, describe, expect, it } from 'vitest';
import { bodyOf, startSmtp } from '../testing/smtp-receiver.js';
import {
  type EmailChannelConfig,
  NotificationsConfigError,
  parseNotificationsConfig,
} from './config.js';
import { EmailSender } from './email.js';
import type { NotificationPayload } from './payload.js';
import type { Resolve } from './target-address.js';

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const notice: NotificationPayload = {
  type: 'airlock.run.failed',
  timestamp: new Date(0).toISOString(),
  data: {
    workspace_id: 'ws_1',
    event: { type: 'run.failed', data: {}, principal: null },
    run: { id: 'run_1' } as RunView,
    task: null,
    card_url: null,
  },
};

/** An email channel to `host:port`, as parsed (in clear text: the test server offers no STARTTLS). */
function senderTo(
  smtp: { host: string; port: number; secure?: boolean },
  resolve?: Resolve,
  to = ['alice@example.com'],
) {
  const channel = {
    name: 'mail',
    kind: 'email',
    workspace: 'ws_1',
    smtp: { ...smtp, allow_plaintext: true },
    from: 'airlock@example.com',
    to,
  } as EmailChannelConfig;
  const sender = new EmailSender(channel, resolve);
  closers.push(() => sender.close());
  return sender;
}

describe("where an email channel's SMTP connection goes", () => {
  it('never to an smtp.host whose name resolves to a link-local address: nothing is sent', async () => {
    const smtp = await startSmtp();
    closers.push(smtp.close);
    const sender = senderTo({ host: 'metadata.example.internal', port: smtp.port }, async () => [
      '127.0.0.1',
      '169.254.169.254',
    ]);
    const attempt = sender.send('ntf_1', notice, { publicUrl: undefined });
    await expect(attempt).rejects.toThrow(
      "the receiver's address 169.254.169.254 is link-local (where the cloud metadata service answers): the kernel never sends there",
    );
    expect(smtp.mails).toHaveLength(0);
  });

  it('to the address its name was checked as, not a second lookup’s (DNS rebinding)', async () => {
    const smtp = await startSmtp();
    closers.push(smtp.close);
    const lookups: string[] = [];
    // Checked as this machine, then the metadata service for every later lookup.
    const rebinding: Resolve = async (hostname) => {
      lookups.push(hostname);
      return lookups.length === 1 ? ['127.0.0.1'] : ['169.254.169.254'];
    };
    const sender = senderTo({ host: 'mail.example.internal', port: smtp.port }, rebinding);
    await sender.send('ntf_1', notice, { publicUrl: undefined });
    expect(smtp.mails.map((mail) => mail.to)).toEqual([['alice@example.com']]);
    expect(lookups).toEqual(['mail.example.internal']);
    // The next attempt looks the name up afresh, and is refused unsent.
    await expect(sender.send('ntf_2', notice, { publicUrl: undefined })).rejects.toThrow(
      /169\.254\.169\.254 is link-local/,
    );
    expect(smtp.mails).toHaveLength(1);
  });

  it('tries every address the name was checked as, not the first alone', async () => {
    const smtp = await startSmtp();
    closers.push(smtp.close);
    // Nothing listens at 127.0.0.2 (a relay on 127.0.0.1 only, a name with an AAAA it does not serve).
    const sender = senderTo({ host: 'mail.example.internal', port: smtp.port }, async () => [
      '127.0.0.2',
      '127.0.0.1',
    ]);
    await sender.send('ntf_1', notice, { publicUrl: undefined });
    expect(smtp.mails.map((mail) => mail.to)).toEqual([['alice@example.com']]);
  });

  it('fails an attempt whose name does not resolve, saying so by its code', async () => {
    const nowhere = Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), {
      code: 'ENOTFOUND',
    });
    const sender = senderTo({ host: 'nowhere.invalid', port: 25 }, () => Promise.reject(nowhere));
    await expect(sender.send('ntf_1', notice, { publicUrl: undefined })).rejects.toThrow(
      'the receiver could not be reached (ENOTFOUND)',
    );
  });

  it('names the configured host, not the address, in TLS (SNI) on the pinned connection', async () => {
    const names: string[] = [];
    // It hears the name the client asks for, then ends the handshake: no certificate needed.
    const server = createTlsServer({
      SNICallback: (servername, callback) => {
        names.push(servername);
        callback(new Error('no certificate here'));
      },
    });
    server.on('tlsClientError', () => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const port = (server.address() as AddressInfo).port;
    const sender = senderTo({ host: 'mail.example.internal', port, secure: true }, async () => [
      '127.0.0.1',
    ]);
    await expect(sender.send('ntf_1', notice, { publicUrl: undefined })).rejects.toThrow();
    expect(names).toEqual(['mail.example.internal']);
  });
});

describe('an smtp.host written as a link-local address', () => {
  it('is refused by the file, as a webhook url there is', () => {
    for (const host of ['169.254.169.254', '[fe80::1]', 'fe80::1', '::ffff:169.254.169.254']) {
      let problems: unknown = [];
      try {
        parseNotificationsConfig(
          {
            channels: [
              {
                name: 'mail',
                kind: 'email',
                workspace: 'ws',
                smtp: { host, port: 25 },
                from: 'airlock@example.com',
                to: ['alice@example.com'],
              },
            ],
          },
          {},
        );
      } catch (error) {
        if (!(error instanceof NotificationsConfigError)) throw error;
        problems = error.problems;
      }
      expect(problems).toEqual([
        expect.objectContaining({
          code: 'invalid_value',
          pointer: '/channels/0/smtp/host',
          message: expect.stringContaining('link-local'),
        }),
      ]);
    }
  });
});

describe("an email channel's recipients", () => {
  it('get one mail each, an address listed twice (in any case) too', async () => {
    const smtp = await startSmtp();
    closers.push(smtp.close);
    const sender = senderTo({ host: '127.0.0.1', port: smtp.port }, async () => ['127.0.0.1'], [
      'alice@example.com',
      'bob@example.com',
      'Alice@Example.COM',
      'alice@example.com',
    ]);
    await sender.send('ntf_1', notice, { publicUrl: undefined });
    expect(smtp.mails.map((mail) => mail.to).sort()).toEqual([
      ['alice@example.com'],
      ['bob@example.com'],
    ]);
  });
});

describe("an email channel's action links", () => {
  it('go to a recipient whose address the members map writes in another case', async () => {
    const smtp = await startSmtp();
    closers.push(smtp.close);
    const channel = {
      name: 'mail',
      kind: 'email',
      workspace: 'ws_1',
      smtp: { host: '127.0.0.1', port: smtp.port, allow_plaintext: true },
      from: 'airlock@example.com',
      to: ['Alice@Example.com'],
      action_links: {
        secret: { value: 'a'.repeat(40) },
        members: { 'alice@example.com': 'cred_alice' },
      },
    } as unknown as EmailChannelConfig;
    const sender = new EmailSender(channel, async () => ['127.0.0.1']);
    closers.push(() => sender.close());
    const parked: NotificationPayload = {
      ...notice,
      type: 'airlock.task.parked',
      data: {
        ...notice.data,
        event: { type: 'task.parked', data: {}, principal: null },
        task: {
          run_id: 'run_1',
          key: 't1',
          version: 'v1',
          tool_name: 'bash',
          tool_input: { command: 'ls' },
          deadline_at: 86_400_000,
        } as unknown as NotificationPayload['data']['task'],
      },
    };
    await sender.send('ntf_1', parked, { publicUrl: 'https://airlock.example.com' });
    expect(smtp.mails).toHaveLength(1);
    expect(bodyOf(smtp.mails[0]!.raw)).toContain(
      'Approve: https://airlock.example.com/notifications/email/actions/',
    );
  });
});
