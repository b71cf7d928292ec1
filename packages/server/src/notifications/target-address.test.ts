import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebhookChannelConfig } from './config.js';
import { NotificationsConfigError, parseNotificationsConfig } from './config.js';
import { isRefusedAddress } from './target-address.js';
import { sendWebhook } from './webhook.js';

const SECRET = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;

function problemsOf(channel: Record<string, unknown>) {
  try {
    parseNotificationsConfig({ channels: [{ name: 'c', workspace: 'ws', ...channel }] }, {});
  } catch (error) {
    if (error instanceof NotificationsConfigError) return error.problems;
    throw error;
  }
  return [];
}

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** A receiver on loopback counting the notices it was posted. */
async function countingReceiver() {
  const posted = { count: 0 };
  const server = createServer((req, res) => {
    posted.count += 1;
    req.resume();
    req.on('end', () => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  closers.push(() => server.close());
  return { port: (server.address() as AddressInfo).port, posted };
}

function channelTo(url: string): WebhookChannelConfig {
  return {
    name: 'hook',
    kind: 'webhook',
    workspace: 'ws',
    url,
    secrets: [{ value: SECRET, fingerprint: '' }],
  } as WebhookChannelConfig;
}

describe('where a notice is never sent', () => {
  it('refuses a webhook url or Slack api_url at a link-local address, however written', () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
      'http://2852039166/', // 169.254.169.254 as one number
      'http://[::ffff:169.254.169.254]/',
      'http://[fe80::1]:8080/hook',
      'http://[fd00:ec2::254]/',
    ]) {
      expect(problemsOf({ kind: 'webhook', url, secrets: [SECRET] })).toEqual([
        expect.objectContaining({ code: 'invalid_value', pointer: '/channels/0/url' }),
      ]);
    }
    const slack = problemsOf({
      kind: 'slack',
      token: 'xoxb-1',
      signing_secret: 'sign',
      channel: 'C1',
      members: {},
      api_url: 'https://169.254.169.254/api/',
    });
    expect(slack).toEqual([
      expect.objectContaining({ code: 'invalid_value', pointer: '/channels/0/api_url' }),
    ]);
  });

  it('takes loopback and private receivers, which a kernel run in-house posts to', () => {
    for (const url of [
      'http://127.0.0.1:9000/h',
      'https://10.0.0.5/h',
      'https://hooks.example.com',
    ]) {
      expect(problemsOf({ kind: 'webhook', url, secrets: [SECRET] })).toEqual([]);
    }
    // In clear text off this machine only when the channel says so (config.test.ts).
    expect(
      problemsOf({
        kind: 'webhook',
        url: 'http://10.0.0.5/h',
        secrets: [SECRET],
        allow_plaintext: true,
      }),
    ).toEqual([]);
    expect(isRefusedAddress('169.254.0.1')).toBe(true);
    expect(isRefusedAddress('192.168.1.1')).toBe(false);
    expect(isRefusedAddress('hooks.example.com')).toBe(false);
  });

  it('fails an attempt whose receiver name resolves to a link-local address, posting nothing', async () => {
    const receiver = await countingReceiver();
    const url = `http://metadata.example.internal:${receiver.port}/hook`;
    const attempt = sendWebhook(
      channelTo(url),
      { id: 'ntf_1', payload: '{}' },
      { now: Date.now(), resolve: async () => ['10.0.0.7', '169.254.169.254'] },
    );
    await expect(attempt).rejects.toThrow(/169\.254\.169\.254 is link-local/);
    expect(receiver.posted.count).toBe(0);
  });

  it('connects to the address it checked: a name that resolves elsewhere the next time (DNS rebinding) is not looked up again', async () => {
    const receiver = await countingReceiver();
    const lookups: string[] = [];
    // Checked as this machine, then the metadata service for every later lookup.
    const rebinding = async (hostname: string) => {
      lookups.push(hostname);
      return lookups.length === 1 ? ['127.0.0.1'] : ['169.254.169.254'];
    };
    await sendWebhook(
      channelTo(`http://rebind.example.internal:${receiver.port}/hook`),
      { id: 'ntf_1', payload: '{}' },
      { now: Date.now(), resolve: rebinding },
    );
    expect(receiver.posted.count).toBe(1);
    expect(lookups).toEqual(['rebind.example.internal']);
    // The next attempt looks the name up afresh, and is refused unposted.
    await expect(
      sendWebhook(
        channelTo(`http://rebind.example.internal:${receiver.port}/hook`),
        { id: 'ntf_2', payload: '{}' },
        { now: Date.now(), resolve: rebinding },
      ),
    ).rejects.toThrow(/169\.254\.169\.254 is link-local/);
    expect(receiver.posted.count).toBe(1);
  });

  it('fails an attempt whose name does not resolve, saying so by its code', async () => {
    const nowhere = Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), {
      code: 'ENOTFOUND',
    });
    await expect(
      sendWebhook(
        channelTo('http://nowhere.invalid/hook'),
        { id: 'ntf_1', payload: '{}' },
        { now: Date.now(), resolve: () => Promise.reject(nowhere) },
      ),
    ).rejects.toThrow('the receiver could not be reached (ENOTFOUND)');
  });

  it('posts to a receiver whose name resolves to loopback, through the system resolver', async () => {
    const receiver = await countingReceiver();
    await sendWebhook(
      channelTo(`http://localhost:${receiver.port}/hook`),
      { id: 'ntf_1', payload: '{}' },
      { now: Date.now() },
    );
    expect(receiver.posted.count).toBe(1);
  });

  it('ends an attempt whose name lookup hangs when the attempt is cut, posting nothing', async () => {
    const receiver = await countingReceiver();
    const cut = new AbortController();
    const attempt = sendWebhook(
      channelTo(`http://hangs.example.internal:${receiver.port}/hook`),
      { id: 'ntf_1', payload: '{}' },
      { now: Date.now(), signal: cut.signal, resolve: () => new Promise<string[]>(() => {}) },
    );
    cut.abort(new Error('the attempt was cut'));
    await expect(attempt).rejects.toThrow('the attempt was cut');
    expect(receiver.posted.count).toBe(0);
  });
});
