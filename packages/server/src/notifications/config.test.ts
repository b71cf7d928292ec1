import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  describeChannel,
  loadNotificationsConfig,
  NotificationsConfigError,
  parseNotificationsConfig,
} from './config.js';
import { fingerprint } from './secrets.js';

const SECRET = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;

function problemsOf(input: unknown, env: NodeJS.ProcessEnv = {}) {
  try {
    parseNotificationsConfig(input, env);
  } catch (error) {
    if (error instanceof NotificationsConfigError) return error.problems;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

describe('notification configuration', () => {
  it('reads secrets inline or from the environment, and shows only their fingerprints', () => {
    const config = parseNotificationsConfig(
      {
        public_url: 'https://airlock.example.com',
        channels: [
          {
            name: 'hook',
            kind: 'webhook',
            workspace: 'ws_1',
            url: 'https://example.com/h',
            secrets: [{ env: 'HOOK_SECRET' }],
          },
          {
            name: 'slack',
            kind: 'slack',
            workspace: 'ws_1',
            token: 'xoxb-1',
            signing_secret: 'sign',
            channel: 'C1',
            members: {},
          },
        ],
      },
      { HOOK_SECRET: SECRET },
    );
    const shown = JSON.stringify(config.channels.map(describeChannel));
    expect(shown).not.toContain(SECRET);
    expect(shown).not.toContain('xoxb-1');
    expect(shown).not.toContain('"sign"');
    expect(shown).toContain(fingerprint(SECRET));
    expect(fingerprint(SECRET)).toMatch(/^sha256:[0-9a-f]{12}$/);
  });

  it('reports every problem with a stable code and a JSON pointer, never the secret', () => {
    const problems = problemsOf({
      channels: [
        {
          name: 'a',
          kind: 'webhook',
          workspace: 'ws',
          url: 'ftp://x',
          secrets: ['whsec_short'],
          colour: 1,
        },
        { name: 'b', kind: 'pager', workspace: 'ws' },
      ],
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'unknown_key', pointer: '/channels/0/colour' }),
        expect.objectContaining({ code: 'invalid_value', pointer: '/channels/0/url' }),
        expect.objectContaining({ code: 'invalid_value', pointer: '/channels/1/kind' }),
      ]),
    );
    const secretProblems = problemsOf(
      {
        channels: [
          {
            name: 'a',
            kind: 'webhook',
            workspace: 'ws',
            url: 'https://x',
            secrets: ['whsec_short', { env: 'NOPE' }],
          },
          { name: 'a', kind: 'webhook', workspace: 'ws', url: 'https://y', secrets: [SECRET] },
        ],
      },
      {},
    );
    expect(secretProblems.map((p) => [p.code, p.pointer])).toEqual([
      ['invalid_webhook_secret', '/channels/0/secrets/0'],
      ['missing_environment_variable', '/channels/0/secrets/1'],
      ['duplicate_channel', '/channels/1/name'],
    ]);
    expect(JSON.stringify(secretProblems)).not.toContain('whsec_short');
  });

  it('lists schema, secret and environment problems together', () => {
    const problems = problemsOf({
      channels: [
        { name: 'a', kind: 'webhook', workspace: 'ws', url: 'ftp://x', secrets: [SECRET] },
        {
          name: 'b',
          kind: 'webhook',
          workspace: 'ws',
          url: 'https://y',
          secrets: ['whsec_short', { env: 'NOPE' }],
        },
        {
          name: 'c',
          kind: 'slack',
          workspace: 'ws',
          token: { env: 'NO_TOKEN' },
          signing_secret: 's',
          channel: 'C1',
          members: {},
        },
      ],
    });
    expect(problems.map((p) => [p.code, p.pointer])).toEqual([
      ['invalid_value', '/channels/0/url'],
      ['invalid_webhook_secret', '/channels/1/secrets/0'],
      ['missing_environment_variable', '/channels/1/secrets/1'],
      ['missing_environment_variable', '/channels/2/token'],
    ]);
  });

  it('takes a whsec_ secret of 24 to 64 bytes, as Standard Webhooks allows', () => {
    const webhook = (secret: string) => ({
      channels: [
        { name: 'a', kind: 'webhook', workspace: 'ws', url: 'https://x', secrets: [secret] },
      ],
    });
    const whsec = (bytes: number) => `whsec_${Buffer.alloc(bytes, 1).toString('base64')}`;
    expect(() => parseNotificationsConfig(webhook(whsec(24)), {})).not.toThrow();
    expect(() => parseNotificationsConfig(webhook(whsec(64)), {})).not.toThrow();
    for (const bytes of [23, 65, 300]) {
      expect(problemsOf(webhook(whsec(bytes))).map((p) => p.code)).toEqual([
        'invalid_webhook_secret',
      ]);
    }
  });

  it('refuses a URL with a user name or password, without repeating it', () => {
    const problems = problemsOf({
      public_url: 'https://admin:hunter2@airlock.example.com',
      channels: [
        {
          name: 'a',
          kind: 'webhook',
          workspace: 'ws',
          url: 'https://user:hunter2@example.com/h',
          secrets: [SECRET],
        },
      ],
    });
    expect(problems.map((p) => [p.code, p.pointer])).toEqual([
      ['invalid_value', '/public_url'],
      ['invalid_value', '/channels/0/url'],
    ]);
    expect(problems[1]!.message).toMatch(/user name or password/);
    expect(JSON.stringify(problems)).not.toContain('hunter2');
  });

  it('names an unreadable or non-JSON file in its error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-notify-'));
    const file = join(dir, 'n.json');
    writeFileSync(file, '{ nope');
    expect(() => loadNotificationsConfig(file)).toThrow(/is not JSON/);
    expect(() => loadNotificationsConfig(join(dir, 'missing.json'))).toThrow(/ENOENT/);
  });

  it('says where a file stops being JSON, never quoting its text (it may hold a secret)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-notify-'));
    const messageFor = (text: string) => {
      const file = join(dir, 'n.json');
      writeFileSync(file, text);
      try {
        loadNotificationsConfig(file);
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error('the file was accepted');
    };
    const bare = messageFor('{"channels": [{"token": xoxb-TOPSECRET}]}');
    expect(bare).toContain('an unexpected "x"');
    expect(bare).not.toContain('TOPSECRET');
    const trailing = messageFor('{\n  "token": "xoxb-TOPSECRET",\n}');
    expect(trailing).toContain('(line 3, column 1)');
    expect(trailing).not.toContain('TOPSECRET');
  });

  it('refuses an action link secret short enough to guess from one link', () => {
    const email = (secret: string) => ({
      channels: [
        {
          name: 'mail',
          kind: 'email',
          workspace: 'ws',
          smtp: { host: 'smtp.example.com', port: 587 },
          from: 'airlock@example.com',
          to: ['a@example.com'],
          action_links: { secret, members: { 'a@example.com': 'cred_1' } },
        },
      ],
    });
    const problems = problemsOf(email('zq'));
    expect(problems.map((p) => [p.code, p.pointer])).toEqual([
      ['invalid_action_link_secret', '/channels/0/action_links/secret'],
    ]);
    expect(JSON.stringify(problems)).not.toContain('"zq"');
    expect(() => parseNotificationsConfig(email('k'.repeat(31)), {})).toThrow();
    expect(() =>
      parseNotificationsConfig(email(Buffer.alloc(32, 7).toString('base64')), {}),
    ).not.toThrow();
  });

  it('refuses a Slack api_url in clear text off loopback: the bot token would cross the network readable', () => {
    const slack = (apiUrl: string) => ({
      channels: [
        {
          name: 'slack',
          kind: 'slack',
          workspace: 'ws',
          token: 'xoxb-1',
          signing_secret: 'sign',
          channel: 'C1',
          members: {},
          api_url: apiUrl,
        },
      ],
    });
    const problems = problemsOf(slack('http://slack.com/api/'));
    expect(problems.map((p) => [p.code, p.pointer])).toEqual([
      ['invalid_value', '/channels/0/api_url'],
    ]);
    expect(problems[0]!.message).toMatch(/https/);
    for (const allowed of [
      'https://slack.com/api/',
      'http://127.0.0.1:4000/api/',
      'http://localhost:4000/api/',
      'http://[::1]:4000/api/',
    ]) {
      expect(() => parseNotificationsConfig(slack(allowed), {})).not.toThrow();
    }
  });

  it('refuses a webhook url in clear text off this machine unless the channel allows plaintext', () => {
    const channel = (url: string, extra: object = {}) => ({
      channels: [{ name: 'a', kind: 'webhook', workspace: 'ws', url, secrets: [SECRET], ...extra }],
    });
    for (const url of ['http://hooks.example.com/airlock', 'http://10.0.0.5:8080/h']) {
      const problems = problemsOf(channel(url));
      expect(problems.map((p) => [p.code, p.pointer])).toEqual([
        ['invalid_value', '/channels/0/url'],
      ]);
      expect(problems[0]!.message).toContain('allow_plaintext');
    }
    for (const url of [
      'https://hooks.example.com/h',
      'http://127.0.0.1:9000/h',
      'http://localhost/h',
      'http://[::1]:9000/h',
    ]) {
      expect(parseNotificationsConfig(channel(url), {}).channels).toHaveLength(1);
    }
    const allowed = parseNotificationsConfig(
      channel('http://10.0.0.5:8080/h', { allow_plaintext: true }),
      {},
    );
    expect(allowed.channels[0]).toMatchObject({
      url: 'http://10.0.0.5:8080/h',
      allow_plaintext: true,
    });
  });

  it('refuses a public_url with a query or fragment, where a link’s path and token would land', () => {
    for (const url of [
      'https://airlock.example.com/?tenant=a',
      'https://airlock.example.com/?',
      'https://airlock.example.com/#/',
    ]) {
      const problems = problemsOf({ public_url: url, channels: [] });
      expect(problems.map((p) => [p.code, p.pointer])).toEqual([['invalid_value', '/public_url']]);
      expect(problems[0]!.message).not.toContain('airlock.example.com');
    }
    for (const url of ['https://airlock.example.com', 'https://example.com/airlock/']) {
      expect(parseNotificationsConfig({ public_url: url, channels: [] }, {}).publicUrl).toBe(url);
    }
  });
});
