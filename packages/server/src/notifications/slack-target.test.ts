import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunView, TaskView } from '@airlock/core';
import { afterEach, describe, expect, it } from 'vitest';
import { capturedLogger } from '../testing/log-lines.js';
import { startSlack } from '../testing/slack-kit.js';
import type { SlackChannelConfig } from './config.js';
import type { NotificationPayload } from './payload.js';
import { SlackSender } from './slack.js';
import type { Resolve } from './target-address.js';

/** Past this much written, the fake Slack ends its answer itself: the kernel was reading it all. */
const GIVE_UP_BYTES = 64 * 1024 * 1024;

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

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

/** A Slack channel at `apiUrl`, built as parsed (an http:// name off loopback is refused by the file). */
function senderTo(apiUrl: string, resolve?: Resolve) {
  const channel = {
    name: 'approvals',
    kind: 'slack',
    workspace: 'ws_1',
    token: { value: 'xoxb-secret-token', fingerprint: '' },
    signing_secret: { value: 'sign', fingerprint: '' },
    channel: 'C1',
    members: {},
    api_url: apiUrl,
  } as unknown as SlackChannelConfig;
  return new SlackSender(channel, capturedLogger().logger, resolve);
}

describe("where a Slack channel's requests go", () => {
  it('never to an api_url whose name resolves to a link-local address: the bot token is not sent', async () => {
    const slack = await startSlack();
    closers.push(slack.close);
    const port = new URL(slack.url).port;
    const sender = senderTo(`http://metadata.example.internal:${port}/api/`, async () => [
      '169.254.169.254',
    ]);
    await expect(sender.post('ntf_1', notice, new AbortController().signal)).rejects.toThrow(
      /169\.254\.169\.254 is link-local/,
    );
    await expect(sender.tellOnly({ channel: 'C1', user: 'U1' }, 'no')).rejects.toThrow(
      /is link-local/,
    );
    expect(slack.received).toHaveLength(0);
  });

  it('to the address its name was checked as, not a second lookup’s (DNS rebinding)', async () => {
    const slack = await startSlack();
    closers.push(slack.close);
    const port = new URL(slack.url).port;
    const lookups: string[] = [];
    const sender = senderTo(`http://slack.example.internal:${port}/api/`, async (hostname) => {
      lookups.push(hostname);
      return lookups.length % 2 === 1 ? ['127.0.0.1'] : ['169.254.169.254'];
    });
    const posted = await sender.post('ntf_1', notice, new AbortController().signal);
    expect(posted).toMatch(/^C1:\d+\.\d+$/);
    expect(lookups).toEqual(['slack.example.internal']);
    expect(slack.received.map((request) => request.path)).toEqual(['/api/chat.postMessage']);
    expect(slack.received[0]?.headers.authorization).toBe('Bearer xoxb-secret-token');
  });

  it('reads at most a few MiB of an answer: an endless one fails the post, not the kernel', async () => {
    const chunk = Buffer.alloc(1 << 20, 32);
    const state = { written: 0 };
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"ok":true,"pad":"');
        const write = () => {
          while (!res.destroyed) {
            if (state.written >= GIVE_UP_BYTES) return void res.end('"}');
            state.written += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', write);
          }
        };
        write();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    server.on('connection', (socket) => closers.push(() => void socket.destroy()));
    closers.push(() => void server.close());
    const sender = senderTo(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`);
    await expect(sender.post('ntf_1', notice, new AbortController().signal)).rejects.toThrow(
      /longer than/,
    );
    expect(state.written).toBeLessThan(GIVE_UP_BYTES);
  }, 60_000);
});
