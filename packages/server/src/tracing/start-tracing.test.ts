import { describe, expect, it } from 'vitest';
import { parseOtlpEndpoint, tracesUrlOf } from './start-tracing.js';

describe('the OTLP endpoint setting', () => {
  it('takes an http(s) base URL and appends /v1/traces once', () => {
    expect(tracesUrlOf(parseOtlpEndpoint('http://127.0.0.1:4318'))).toBe(
      'http://127.0.0.1:4318/v1/traces',
    );
    expect(tracesUrlOf(parseOtlpEndpoint('https://c:4318/v1/traces/'))).toBe(
      'https://c:4318/v1/traces',
    );
  });

  it('refuses another scheme without showing the credentials the URL carries', () => {
    expect(() =>
      parseOtlpEndpoint('ftp://tenant:s3cret@collector:4318', '--otlp-endpoint'),
    ).toThrow(
      '--otlp-endpoint wants an http(s) URL such as http://127.0.0.1:4318, not ftp://***@collector:4318',
    );
  });

  it('refuses an endpoint no parser accepts without showing its password', () => {
    for (const text of [
      'http://tenant:pa?ss@collector:4318',
      'http://tenant:pa#ss@collector:4318',
      'tenant:pass@collector:4318',
    ]) {
      expect(() => parseOtlpEndpoint(text, '--otlp-endpoint')).toThrow(
        /^--otlp-endpoint wants an http\(s\) URL such as http:\/\/127\.0\.0\.1:4318, not \S*\*\*\*@collector:4318$/,
      );
      expect(() => parseOtlpEndpoint(text)).not.toThrow(/pa.?ss/);
    }
  });
});
