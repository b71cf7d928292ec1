import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Airlock, startAirlock } from '../airlock.js';
import { ACTION_LINK_PATH } from './action-links.js';
import { parseNotificationsConfig } from './config.js';

describe('the channels’ routes refuse a method they do not serve', () => {
  let airlock: Airlock;
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-routes-'));

  beforeAll(async () => {
    airlock = await startAirlock({
      dataDir,
      rateLimit: null,
      authFailureLimit: null,
      notifications: parseNotificationsConfig({ channels: [] }),
    });
  }, 60_000);
  afterAll(async () => {
    await airlock?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('with 405 method_not_allowed naming the methods served', async () => {
    const cases = [
      { path: `${ACTION_LINK_PATH}some-token`, method: 'PUT', allow: 'GET, POST' },
      { path: `${ACTION_LINK_PATH}some-token`, method: 'DELETE', allow: 'GET, POST' },
      { path: '/notifications/slack/ws_1/chat/interactions', method: 'GET', allow: 'POST' },
    ];
    for (const { path, method, allow } of cases) {
      const answer = await fetch(`${airlock.url}${path}`, { method });
      expect(answer.status).toBe(405);
      expect(answer.headers.get('allow')).toBe(allow);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe(
        'method_not_allowed',
      );
    }
  });
});
