import type { AddressInfo } from 'node:net';
import { createServer, type Socket } from 'node:net';
import type { RunView } from '@airlock/core';
import { afterEach, describe, expect, it } from 'vitest';
import { capturedLogger } from '../testing/log-lines.js';
import type { SlackChannelConfig, WebhookChannelConfig } from './config.js';
import type { NotificationPayload } from './payload.js';
import { SlackSender } from './slack.js';
import { sendWebhook } from './webhook.js';

const SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/**
 * A receiver that answers every request `101 Switching Protocols` and keeps the connection
 * open: Node hands such an answer to a request's 'upgrade' listeners, not to its callback.
 */
async function upgradingReceiver() {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('data', () => {
      socket.write(
        'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n',
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  closers.push(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

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

// Before, neither promise ever settled, not even when the attempt's deadline aborted it: the
// worker kept the send in flight for good, and four such filled the channel's slots.
describe('a receiver that answers 101 (an upgrade)', () => {
  it("fails a webhook's attempt, saying the status", async () => {
    const url = await upgradingReceiver();
    const channel = {
      name: 'hook',
      kind: 'webhook',
      workspace: 'ws',
      url: `${url}/hook`,
      secrets: [{ value: SECRET, fingerprint: '' }],
    } as WebhookChannelConfig;
    await expect(
      sendWebhook(channel, { id: 'ntf_1', payload: '{}' }, { now: Date.now() }),
    ).rejects.toThrow('the receiver answered 101');
  });

  it('fails a Slack post: no message was posted', async () => {
    const url = await upgradingReceiver();
    const channel = {
      name: 'approvals',
      kind: 'slack',
      workspace: 'ws_1',
      token: { value: 'xoxb-secret-token', fingerprint: '' },
      signing_secret: { value: 'sign', fingerprint: '' },
      channel: 'C1',
      members: {},
      api_url: `${url}/api/`,
    } as unknown as SlackChannelConfig;
    const sender = new SlackSender(channel, capturedLogger().logger);
    await expect(sender.post('ntf_1', notice)).rejects.toThrow(/101/);
  });
});
