import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';
import { LOG_REDACTION, REDACTED, redactUrl } from './redact.js';

const [sqlite] = await backends();

/** A pino logger at debug level, with the kernel's redaction, writing into an array. */
function capturingLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, logger: pino({ level: 'debug', redact: LOG_REDACTION }, stream) };
}

describe('credentials never reach a log line', () => {
  it('redacts access_token (however it is spelled) and keeps the rest of the URL', () => {
    expect(redactUrl('/feed?run_id=r1&access_token=secret&after=3')).toBe(
      `/feed?run_id=r1&access_token=${REDACTED}&after=3`,
    );
    expect(redactUrl('/feed?Access_Token=secret')).toBe(`/feed?Access_Token=${REDACTED}`);
    expect(redactUrl('/feed?access%5Ftoken=secret')).toBe(`/feed?access%5Ftoken=${REDACTED}`);
    expect(redactUrl('/healthz')).toBe('/healthz');
  });

  it('redacts a signed email action link, which decides as a member', () => {
    const link = 'eyJ3b3Jrc3BhY2VfaWQiOiJ3c18xIn0.c2lnbmF0dXJl';
    expect(redactUrl(`/notifications/email/actions/${link}`)).toBe(
      `/notifications/email/actions/${REDACTED}`,
    );
    expect(redactUrl(`/notifications/email/actions/${link}?x=1`)).toBe(
      `/notifications/email/actions/${REDACTED}?x=1`,
    );
    // Dot segments reach the action route too (the router resolves them): the link is still one.
    for (const detour of [
      '/notifications/email/%2e/actions/',
      '/notifications/email/./actions/',
      '/notifications/x/../email/actions/',
      '/notifications/email/%2E%2E/email/actions/',
    ]) {
      const logged = redactUrl(`${detour}${link}`);
      expect(logged).not.toContain(link);
      expect(logged).toBe(`/notifications/email/actions/${REDACTED}`);
    }
    // Sent a little wrong, it misses the route (404) yet is still a link that works: not logged either.
    for (const miss of [
      '//notifications/email/actions/',
      '/notifications/email/actions%2F',
      '/notifications/email%2Factions/',
    ]) {
      expect(redactUrl(`${miss}${link}`), miss).not.toContain(link);
    }
  });

  it('redacts a token wherever the URL carries it, in a path segment or a query value', () => {
    const token = `alk_member_${'A'.repeat(43)}`;
    expect(redactUrl(`/api/v1/workspaces/ws_1/credentials/${token}/revoke`)).toBe(
      `/api/v1/workspaces/ws_1/credentials/${REDACTED}/revoke`,
    );
    expect(redactUrl(`/x/${token.replaceAll('_', '%5F')}?a=1`)).toBe(`/x/${REDACTED}?a=1`);
    expect(redactUrl(`/x?credential=${token}&b=2`)).toBe(`/x?credential=${REDACTED}&b=2`);
    // A token inside a value or a segment carries it as much: `Bearer alk_…`, `alk_…,more`.
    expect(redactUrl(`/x?h=Bearer%20${token}&b=2`)).toBe(`/x?h=${REDACTED}&b=2`);
    expect(redactUrl(`/x?h=${token},foo`)).toBe(`/x?h=${REDACTED}`);
    expect(redactUrl(`/x/prefix-${token}/y`)).toBe(`/x/${REDACTED}/y`);
    // A token sent as a parameter's name, alone or in brackets, goes with its pair.
    expect(redactUrl(`/feed?${token}&after=3`)).toBe(`/feed?${REDACTED}&after=3`);
    expect(redactUrl(`/x?a[${token}]=1&b=2`)).toBe(`/x?${REDACTED}&b=2`);
    expect(redactUrl(`/x?${token.replaceAll('_', '%5F')}=1`)).toBe(`/x?${REDACTED}`);
    // Ids are not tokens: a credential id, a run id and a path stay readable.
    expect(redactUrl('/api/v1/workspaces/ws_1/credentials/cred_3b1f0c/revoke')).toBe(
      '/api/v1/workspaces/ws_1/credentials/cred_3b1f0c/revoke',
    );
    expect(redactUrl('/api/v1/workspaces/ws_1/runs/run_0mx8l81ug_u76GOvKF5r3arCk')).toBe(
      '/api/v1/workspaces/ws_1/runs/run_0mx8l81ug_u76GOvKF5r3arCk',
    );
  });

  it('redacts Authorization headers in any logged object, at every level', () => {
    const { lines, logger } = capturingLogger();
    logger.error({ headers: { authorization: 'Bearer secret-1' } }, 'a');
    logger.warn({ req: { headers: { authorization: 'Bearer secret-2' } } }, 'b');
    logger.debug({ authorization: 'Bearer secret-3', access_token: 'secret-4' }, 'c');
    expect(lines).toHaveLength(3);
    expect(lines.join('')).not.toMatch(/secret-\d/);
  });

  it('redacts them spelled with a capital and in the request an HTTP client’s error holds', () => {
    const { lines, logger } = capturingLogger();
    const refused = Object.assign(new Error('Request failed with status code 401'), {
      config: { headers: { Authorization: 'Bearer secret-1' } },
      request: { headers: { authorization: 'Bearer secret-2', Cookie: 'sid=secret-3' } },
    });
    logger.error({ err: refused }, 'a');
    logger.warn(
      { headers: { Authorization: 'Bearer secret-4' }, a: { b: { token: 'secret-5' } } },
      'b',
    );
    expect(lines).toHaveLength(2);
    expect(lines.join('')).not.toMatch(/secret-\d/);
    // What is no credential stays readable.
    expect(JSON.parse(lines[0]!).err.message).toBe('Request failed with status code 401');
  });

  describe('the access log at debug level', () => {
    let d: Deployment;
    const captured = capturingLogger();
    beforeAll(async () => {
      d = await deploy(sqlite!, { logger: captured.logger });
    });
    afterAll(async () => {
      await d.close();
    });

    it('records the request with the token in its query redacted', async () => {
      const response = await fetch(`${d.url}${d.ws}/runs?access_token=${d.tokens.member}&limit=5`, {
        headers: { authorization: `Bearer ${d.tokens.member}` },
      });
      expect(response.status).toBe(400);
      const lines = captured.lines.filter((line) => line.includes('"msg":"request"'));
      expect(lines.some((line) => line.includes(`access_token=${REDACTED}`))).toBe(true);
      expect(captured.lines.join('')).not.toContain(d.tokens.member);
    });

    it('records a revoke by the token itself with the token in its path redacted', async () => {
      const { body } = await d.member.post(`${d.ws}/credentials`, { kind: 'member', label: 'x' });
      const token = body.token as string;
      const response = await fetch(`${d.url}${d.ws}/credentials/${token}/revoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${d.tokens.member}` },
      });
      expect(response.status).toBe(200);
      const lines = captured.lines.filter((line) => line.includes('"msg":"request"'));
      expect(lines.some((line) => line.includes(`/credentials/${REDACTED}/revoke`))).toBe(true);
      expect(captured.lines.join('')).not.toContain(token);
    });
  });
});
