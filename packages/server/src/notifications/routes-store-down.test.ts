import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Airlock, startAirlock } from '../airlock.js';
import { listCredentials } from '../store/accounts.js';
import { startPostgresRelay } from '../testing/cuttable-relay.js';
import { freshPostgresDatabase, postgresSkipReason } from '../testing/postgres.js';
import { workspaceWithTokens } from '../testing/workspace-tokens.js';
import { ACTION_LINK_PATH, signActionLink } from './action-links.js';
import { parseNotificationsConfig } from './config.js';

const pgSkip = await postgresSkipReason();
if (pgSkip)
  console.warn(`[airlock tests] skipping the channels' routes on a store down: ${pgSkip}`);

const LINK_SECRET = 'Zq4Rk1Vn8Tx3Lm6Pw9Hs2Jd5Gf7Cb0Ya';
const SIGNING_SECRET = 'slack-signing-secret-of-the-test';

describe.skipIf(pgSkip !== null)('the channels’ routes while PostgreSQL does not answer', () => {
  let airlock: Airlock;
  let relay: Awaited<ReturnType<typeof startPostgresRelay>>;
  let workspaceId: string;
  let member: string;

  beforeAll(async () => {
    relay = await startPostgresRelay(await freshPostgresDatabase());
    const first = await startAirlock({
      databaseUrl: relay.url,
      rateLimit: null,
      authFailureLimit: null,
    });
    workspaceId = (await workspaceWithTokens(first.store, 'down')).workspaceId;
    member = (await listCredentials(first.store, workspaceId)).find(
      (c) => c.kind === 'member',
    )!.credential_id;
    await first.close();
    airlock = await startAirlock({
      databaseUrl: relay.url,
      rateLimit: null,
      authFailureLimit: null,
      notifications: parseNotificationsConfig({
        channels: [
          {
            name: 'mail',
            kind: 'email',
            workspace: workspaceId,
            smtp: { host: '127.0.0.1', port: 2525 },
            from: 'airlock@example.com',
            to: ['alice@example.com'],
            action_links: { secret: LINK_SECRET, members: { 'alice@example.com': member } },
          },
          {
            name: 'chat',
            kind: 'slack',
            workspace: workspaceId,
            token: 'xoxb-test',
            signing_secret: SIGNING_SECRET,
            channel: 'C1',
            api_url: 'http://127.0.0.1:9/api/',
            members: { U1: member },
          },
        ],
      }),
    });
  }, 60_000);
  afterAll(async () => {
    await airlock?.close();
    await relay?.cut();
  });

  it('answer 503 store_unavailable with a retry-after, never a 500', async () => {
    const link = signActionLink(LINK_SECRET, {
      workspace_id: workspaceId,
      channel: 'mail',
      run_id: 'run_x',
      task_key: 't1',
      version: 'v1',
      action: 'approve',
      member,
      expires_at: Date.now() + 600_000,
    });
    const value = JSON.stringify({
      workspace_id: workspaceId,
      run_id: 'run_x',
      task_key: 't1',
      version: 'v1',
      delivery_id: 'dlv_x',
    });
    const body = `payload=${encodeURIComponent(
      JSON.stringify({
        type: 'block_actions',
        user: { id: 'U1' },
        actions: [{ action_id: 'airlock_approve', value }],
        container: { channel_id: 'C1', message_ts: '1.2' },
      }),
    )}`;
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = `v0=${createHmac('sha256', SIGNING_SECRET).update(`v0:${timestamp}:${body}`).digest('hex')}`;
    await relay.cut();
    try {
      const answers = [
        await fetch(`${airlock.url}${ACTION_LINK_PATH}${link}`),
        await fetch(`${airlock.url}/notifications/slack/${workspaceId}/chat/interactions`, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            'x-slack-request-timestamp': timestamp,
            'x-slack-signature': signature,
          },
          body,
        }),
      ];
      for (const answer of answers) {
        expect(answer.status).toBe(503);
        expect(answer.headers.get('retry-after')).toBe('5');
        const error = ((await answer.json()) as { error: { code: string } }).error;
        expect(error.code).toBe('store_unavailable');
      }
    } finally {
      await relay.restore();
    }
  }, 60_000);
});
