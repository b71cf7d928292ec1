import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunView, TaskView } from '@airlock/core';
import { afterEach, describe, expect, it } from 'vitest';
import { capturedLogger } from '../testing/log-lines.js';
import { startReceiver } from '../testing/notify-kit.js';
import {
  parseNotificationsConfig,
  type SlackChannelConfig,
  type WebhookChannelConfig,
} from './config.js';
import type { NotificationPayload } from './payload.js';
import { SlackSender } from './slack.js';
import { sendWebhook } from './webhook.js';

const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** Where a redirect points: a server that must hear nothing (the metadata service, say). */
async function elsewhere() {
  const target = await startReceiver(async () => ({ status: 200, body: '{"ok":true,"ts":"1.2"}' }));
  closers.push(target.close);
  return target;
}

/** A receiver that answers every request with `status` and a Location to `to`. */
async function redirecting(status: number, to: string) {
  const received: string[] = [];
  const server = createServer((req, res) => {
    received.push(req.url ?? '/');
    req.resume();
    req.on('end', () => {
      res.writeHead(status, { location: to, 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

const notice: NotificationPayload = {
  type: 'airlock.task.parked',
  timestamp: new Date(0).toISOString(),
  data: {
    workspace_id: 'ws_1',
    event: { type: 'task.parked', data: {}, principal: null },
    run: { id: 'run_1' } as RunView,
    task: {
      tool_name: 'shell',
      tool_input: { command: 'ls' },
      version: 'v1',
    } as unknown as TaskView,
    card_url: null,
  },
};

describe('a receiver that answers with a redirect', () => {
  it.each([301, 302, 307, 308])(
    '%s fails a webhook attempt, and the kernel does not follow it',
    async (status) => {
      const target = await elsewhere();
      const receiver = await redirecting(status, `${target.url}/latest/meta-data/`);
      const channel = parseNotificationsConfig({
        channels: [
          {
            name: 'hook',
            kind: 'webhook',
            workspace: 'ws_1',
            url: `${receiver.url}/hook`,
            secrets: [SECRET],
          },
        ],
      }).channels[0] as WebhookChannelConfig;
      await expect(
        sendWebhook(channel, { id: 'ntf_1', payload: '{}' }, { now: Date.now() }),
      ).rejects.toThrow(`the receiver answered ${status}`);
      expect(receiver.received).toHaveLength(1);
      expect(target.received).toHaveLength(0);
    },
  );

  it.each([302, 307, 308])(
    '%s from the Slack api_url fails the post, and the kernel does not follow it',
    async (status) => {
      const target = await elsewhere();
      const slack = await redirecting(status, `${target.url}/latest/meta-data/`);
      const channel = parseNotificationsConfig({
        channels: [
          {
            name: 'approvals',
            kind: 'slack',
            workspace: 'ws_1',
            token: 'xoxb-secret-token',
            signing_secret: 'sign',
            channel: 'C1',
            members: {},
            api_url: `${slack.url}/api/`,
          },
        ],
      }).channels[0] as SlackChannelConfig;
      const sender = new SlackSender(channel, capturedLogger().logger);
      // With and without an attempt's signal (a press's private reply is sent without one).
      await expect(sender.post('ntf_1', notice, new AbortController().signal)).rejects.toThrow();
      await expect(sender.tellOnly({ channel: 'C1', user: 'U1' }, 'no')).rejects.toThrow();
      expect(slack.received).toHaveLength(2);
      expect(target.received).toHaveLength(0);
    },
  );
});
