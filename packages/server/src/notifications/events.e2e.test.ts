import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { client, waitFor } from '../testing/harness.js';
import {
  closeAfterEach,
  deployWithChannels,
  freePort,
  type NotifyDeployment,
  startReceiver,
} from '../testing/notify-kit.js';
import { backends } from '../testing/stores.js';
import type { NotificationPayload } from './payload.js';

const sqlite = (await backends()).find((backend) => backend.name === 'sqlite')!;
const SECRET = `whsec_${Buffer.alloc(32, 8).toString('base64')}`;

describe('notifying events beyond a park', () => {
  let d: NotifyDeployment | undefined;
  const closers = closeAfterEach(() => d);

  it('a question and an expiry each reach the channel; no secret reaches the log, even when a send fails', async () => {
    const receiver = await startReceiver((_, i) => ({ status: i === 0 ? 500 : 200 }));
    closers.push(receiver.close);
    let log = '';
    const logger = pino(
      { level: 'debug' },
      new Writable({
        write(chunk, _encoding, done) {
          log += chunk;
          done();
        },
      }),
    );
    // The question expires by moving the kernel's clock a day on once its notice came, rather
    // than by a short TTL waited out.
    let ahead = 0;
    d = await deployWithChannels(
      sqlite,
      ({ workspaceId }) => ({
        channels: [
          {
            name: 'ops',
            kind: 'webhook',
            workspace: workspaceId,
            url: receiver.url,
            secrets: [SECRET],
          },
        ],
      }),
      {
        port: await freePort(),
        logger,
        clock: () => Date.now() + ahead,
        notificationTuning: { pollMs: 50, backoff: { baseMs: 20, capMs: 50 } },
      },
    );
    const agent = client(d.url, d.tokens.agent);
    const asked = await agent.post(`${d.ws}/runs`, {
      approval_mode: 'ask',
      input: 'q',
      provider: {
        kind: 'scripted',
        rounds: [{ tool_calls: [{ name: 'ask', input: { prompt: 'Ship it?' } }] }, { final: 'f' }],
      },
    });
    expect(asked.status).toBe(201);
    const types = () =>
      receiver.received.map((r) => (JSON.parse(r.body) as NotificationPayload).type);
    await waitFor(async () => types().includes('airlock.task.asked'), { timeoutMs: 20_000 });
    ahead = 25 * 3_600_000;
    await waitFor(async () => types().includes('airlock.task.expired'), { timeoutMs: 20_000 });
    const question = receiver.received
      .map((r) => JSON.parse(r.body) as NotificationPayload)
      .find((p) => p.type === 'airlock.task.asked')!;
    expect(question.data.task?.prompt).toBe('Ship it?');
    expect(log).toContain('notification attempt failed');
    expect(log).not.toContain(SECRET);
    expect(log).not.toContain(SECRET.slice('whsec_'.length));
  });
});
