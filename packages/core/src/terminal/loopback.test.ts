import { describe, expect, it } from 'vitest';
import { isLoopbackHost } from './loopback.js';

describe('isLoopbackHost', () => {
  it.each(['localhost', 'LOCALHOST', '127.0.0.1', '127.1.2.3', '::1', '[::1]', '0:0:0:0:0:0:0:1'])(
    'takes %s as loopback',
    (host) => {
      expect(isLoopbackHost(host)).toBe(true);
    },
  );
  it.each([
    'example.com',
    '10.0.0.1',
    '0.0.0.0',
    '::',
    '128.0.0.1',
    '127.0.0.256',
    'localhost.example',
    '127.0.0.1.nip.io',
  ])('takes %s as not loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
  it('takes *.localhost as loopback only when asked to (browsers resolve it so)', () => {
    expect(isLoopbackHost('app.localhost')).toBe(false);
    expect(isLoopbackHost('app.localhost', { localhostSubdomains: true })).toBe(true);
    expect(isLoopbackHost('localhost.evil.com', { localhostSubdomains: true })).toBe(false);
  });
});
