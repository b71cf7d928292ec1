import { describe, expect, it } from 'vitest';
import {
  ConnectionError,
  DeadlineExceededError,
  errorFromBody,
  unreadableAnswer,
  ValidationError,
} from '../errors.js';
import { isLastingFailure } from './lasting-failure.js';

/** A failed request as the SDK reports it: fetch's TypeError, the socket's error as its cause. */
const noAnswer = (code: string, extra: Record<string, unknown> = {}) =>
  new ConnectionError(
    'the kernel did not answer',
    new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code, ...extra }) }),
  );

describe('which failures end an executor', () => {
  it.each([
    ['a revoked credential', errorFromBody({ error: { code: 'unauthenticated' } }, 401)],
    ['a token of another kind', errorFromBody({ error: { code: 'forbidden' } }, 403)],
    ['a route that is not there', errorFromBody(null, 404)],
    ['a claim refused as it is', errorFromBody({ error: { code: 'invalid_input' } }, 400)],
    ['a body past the limit', errorFromBody(null, 413)],
    ['a code from a newer kernel', errorFromBody({ error: { code: 'gone_for_good' } }, 410)],
    ['another web server', unreadableAnswer('not the kernel', 200)],
    ['a redirect', errorFromBody(null, 302)],
    ['what the SDK refuses to send', new ValidationError({ code: 'invalid_input', detail: 'x' })],
    ['a self-signed certificate', noAnswer('DEPTH_ZERO_SELF_SIGNED_CERT')],
    ['an expired certificate', noAnswer('CERT_HAS_EXPIRED')],
    ['another host name', noAnswer('ERR_TLS_CERT_ALTNAME_INVALID')],
    ['https to plain http (fetch)', noAnswer('ERR_SSL_WRONG_VERSION_NUMBER')],
    ['https to plain http (node:http)', noAnswer('EPROTO')],
    ['an OpenSSL error', noAnswer('ERR_X', { library: 'SSL routines' })],
    ['no AirlockError at all', new Error('no WebSocket implementation')],
  ])('%s ends it', (_what, error) => {
    expect(isLastingFailure(error)).toBe(true);
  });

  it.each([
    ['a refused connection', noAnswer('ECONNREFUSED')],
    ['a reset', noAnswer('ECONNRESET')],
    ['a name not resolved yet', noAnswer('ENOTFOUND')],
    ['a connection with no cause', new ConnectionError('no answer')],
    ['no answer in time', new DeadlineExceededError('no answer', 30_000)],
    ['the kernel failing', errorFromBody({ error: { code: 'internal' } }, 500)],
    ['a proxy whose kernel is away', errorFromBody(null, 502)],
    ['a store that cannot write', errorFromBody({ error: { code: 'store_unavailable' } }, 503)],
    ['a proxy timing out', errorFromBody(null, 504)],
    ['a request too slow', errorFromBody({ error: { code: 'request_timeout' } }, 408)],
    ['a rate limit', errorFromBody({ error: { code: 'rate_limited' } }, 429)],
    ['a socket frame it could not read', unreadableAnswer('frame', null)],
  ])('%s is tried again', (_what, error) => {
    expect(isLastingFailure(error)).toBe(false);
  });

  it('once the url reached the kernel, a 404 or a page that is not its answer is tried again; a refusal still ends it', () => {
    expect(isLastingFailure(errorFromBody(null, 404), true)).toBe(false);
    expect(isLastingFailure(unreadableAnswer('not the kernel', 200), true)).toBe(false);
    expect(isLastingFailure(errorFromBody({ error: { code: 'unauthenticated' } }, 401), true)).toBe(
      true,
    );
    expect(isLastingFailure(errorFromBody(null, 413), true)).toBe(true);
    expect(isLastingFailure(noAnswer('CERT_HAS_EXPIRED'), true)).toBe(true);
  });
});
