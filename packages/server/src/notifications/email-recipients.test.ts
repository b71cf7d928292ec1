import type { RunView } from '@airlock/core';
import { afterEach, describe, expect, it } from 'vitest';
import { startSmtp } from '../testing/smtp-receiver.js';
import type { EmailChannelConfig } from './config.js';
import { EmailSender } from './email.js';
import type { NotificationPayload } from './payload.js';

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

describe("an email channel's recipients", () => {
  it('get one mail each, an address listed twice (in any case) too', async () => {
    const smtp = await startSmtp();
    closers.push(smtp.close);
    const channel = {
      name: 'mail',
      kind: 'email',
      workspace: 'ws_1',
      smtp: { host: '127.0.0.1', port: smtp.port, allow_plaintext: true },
      from: 'airlock@example.com',
      to: ['alice@example.com', 'bob@example.com', 'Alice@Example.COM', 'alice@example.com'],
    } as EmailChannelConfig;
    const sender = new EmailSender(channel, async () => ['127.0.0.1']);
    closers.push(() => sender.close());
    await sender.send('ntf_1', notice, { publicUrl: undefined });
    expect(smtp.mails.map((mail) => mail.to).sort()).toEqual([
      ['alice@example.com'],
      ['bob@example.com'],
    ]);
  });
});
