import { describe, expect, it } from 'vitest';
import { waitFor } from '../testing/harness.js';
import { capturedLogger } from '../testing/log-lines.js';
import {
  closeAfterEach,
  deployWithChannels,
  FAST_DELIVERY,
  freePort,
  type NotifyDeployment,
  startReceiver,
} from '../testing/notify-kit.js';
import { backends } from '../testing/stores.js';
import { defaultPublicUrl, type NotificationPayload } from './payload.js';

const [sqlite] = await backends();

describe('links in notices when the kernel listens on every interface', () => {
  let d: NotifyDeployment | undefined;
  const closers = closeAfterEach(() => d);

  it('takes the listen address as the links base only when it names one host', () => {
    expect(defaultPublicUrl('http://127.0.0.1:4820', '127.0.0.1')).toBe('http://127.0.0.1:4820');
    expect(defaultPublicUrl('http://10.0.0.5:4820', '10.0.0.5')).toBe('http://10.0.0.5:4820');
    for (const host of ['0.0.0.0', '::', '[::]']) {
      expect(defaultPublicUrl(`http://${host}:4820`, host), host).toBeUndefined();
    }
  });

  it('sends no link naming 0.0.0.0, and says at start that public_url is missing', async () => {
    const receiver = await startReceiver();
    closers.push(receiver.close);
    const { logger, lines } = capturedLogger('warn');
    d = await deployWithChannels(
      sqlite!,
      ({ workspaceId }) => ({
        channels: [
          {
            name: 'ops',
            kind: 'webhook',
            workspace: workspaceId,
            url: `${receiver.url}/hook`,
            secrets: [`whsec_${Buffer.alloc(32, 7).toString('base64')}`],
          },
        ],
      }),
      { port: await freePort(), host: '0.0.0.0', logger, notificationTuning: FAST_DELIVERY },
    );
    expect(lines.some((line) => line.msg.includes('no public_url'))).toBe(true);
    await d.park();
    await waitFor(async () => (receiver.received.length > 0 ? true : undefined));
    const payload = JSON.parse(receiver.received[0]!.body) as NotificationPayload;
    expect(payload.type).toBe('airlock.task.parked');
    expect(payload.data.card_url).toBeNull();
    expect(receiver.received[0]!.body).not.toContain('0.0.0.0');
  });
});
