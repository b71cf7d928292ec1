import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Airlock, startAirlock } from '../airlock.js';
import { signed } from '../testing/slack-kit.js';
import { parseNotificationsConfig } from './config.js';

const SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;

describe('the Slack interaction endpoint, asked by a caller without the signing secret', () => {
  let airlock: Airlock;
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-slack-probe-'));

  beforeAll(async () => {
    airlock = await startAirlock({
      dataDir,
      rateLimit: null,
      authFailureLimit: null,
      notifications: parseNotificationsConfig({
        channels: [
          {
            name: 'approvals',
            kind: 'slack',
            workspace: 'ws_real',
            token: 'xoxb-test',
            signing_secret: 'the-real-signing-secret',
            channel: 'C1',
            members: {},
            api_url: 'http://127.0.0.1:9/api/',
          },
          {
            name: 'hook',
            kind: 'webhook',
            workspace: 'ws_real',
            url: 'http://127.0.0.1:9/h',
            secrets: [SECRET],
          },
        ],
      }),
    });
  }, 60_000);
  afterAll(async () => {
    await airlock?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers a configured channel and one that does not exist alike, so nothing tells which exist', async () => {
    const body = 'payload=%7B%7D';
    const answers = [];
    for (const path of [
      'ws_real/approvals', // configured
      'ws_real/nope', // no such channel in a real workspace
      'ws_none/approvals', // no such workspace
      'ws_real/hook', // a channel that is no Slack channel
    ]) {
      for (const headers of [
        { 'content-type': 'application/x-www-form-urlencoded' }, // unsigned
        signed(body, 'a-guessed-secret'), // signed with the wrong secret
      ]) {
        const answer = await fetch(`${airlock.url}/notifications/slack/${path}/interactions`, {
          method: 'POST',
          headers,
          body,
        });
        answers.push({ path, status: answer.status, body: await answer.json() });
      }
    }
    for (const answer of answers) {
      expect(answer).toEqual({
        path: answer.path,
        status: 401,
        body: {
          error: {
            code: 'unauthenticated',
            detail: 'the Slack signature is missing, wrong or stale',
          },
        },
      });
    }
  });
});
