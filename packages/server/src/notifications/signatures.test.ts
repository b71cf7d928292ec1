import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { checkActionLink, signActionLink } from './action-links.js';
import { verifySlackSignature } from './slack-interactions.js';
import { signWebhook } from './webhook.js';

describe('signatures', () => {
  it('signs webhooks the way the standardwebhooks package verifies them', () => {
    const secret = `whsec_${Buffer.alloc(24, 5).toString('base64')}`;
    const body = JSON.stringify({ type: 'airlock.task.parked', data: { a: 'é' } });
    const headers = signWebhook([secret], {
      id: 'ntf_1',
      timestampSeconds: Math.floor(Date.now() / 1000),
      body,
    });
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    // The package refuses a timestamp outside its five-minute window.
    const old = signWebhook([secret], {
      id: 'ntf_1',
      timestampSeconds: Math.floor(Date.now() / 1000) - 600,
      body,
    });
    expect(() => new Webhook(secret).verify(body, { ...old })).toThrow();
  });

  it("checks Slack's v0 signature and its replay window", () => {
    const now = 1_700_000_000_000;
    const at = String(now / 1000);
    const body = 'payload=%7B%7D';
    const signature = `v0=${createHmac('sha256', 's3cret').update(`v0:${at}:${body}`).digest('hex')}`;
    expect(verifySlackSignature('s3cret', { timestamp: at, signature, body }, now)).toBe(true);
    expect(
      verifySlackSignature('s3cret', { timestamp: at, signature, body: `${body}x` }, now),
    ).toBe(false);
    expect(verifySlackSignature('other', { timestamp: at, signature, body }, now)).toBe(false);
    expect(verifySlackSignature('s3cret', { timestamp: at, signature, body }, now + 301_000)).toBe(
      false,
    );
    expect(verifySlackSignature('s3cret', { timestamp: undefined, signature, body }, now)).toBe(
      false,
    );
  });

  it('refuses an action link that is forged, altered or past its park', () => {
    const claim = {
      workspace_id: 'ws',
      channel: 'mail',
      run_id: 'r',
      task_key: 't1',
      version: 'v',
      action: 'approve' as const,
      member: 'cred_1',
      expires_at: 2000,
    };
    const token = signActionLink('k', claim);
    expect(checkActionLink('k', token, 1000)).toBeNull();
    expect(checkActionLink('k', token, 2001)).toBe('expired');
    expect(checkActionLink('other', token, 1000)).toBe('bad_signature');
    const [, mac] = token.split('.');
    const denied = Buffer.from(JSON.stringify({ ...claim, action: 'deny' })).toString('base64url');
    expect(checkActionLink('k', `${denied}.${mac}`, 1000)).toBe('bad_signature');
  });
});
