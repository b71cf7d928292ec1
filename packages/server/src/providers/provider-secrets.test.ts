import { describe, expect, it } from 'vitest';
import { withoutSecrets } from './provider-secrets.js';

describe('withoutSecrets', () => {
  it('takes out the whole of a secret that a Bearer pattern would have cut at its whitespace', () => {
    const key = 'sk-first-part\nsk-second-part';
    const kept = withoutSecrets(`Headers.append: "Bearer ${key}" is an invalid header value.`, [
      key,
    ]);
    expect(kept).toBe('Headers.append: "Bearer [redacted]" is an invalid header value.');
  });

  it('still takes out a bearer credential and URL credentials it was not given', () => {
    expect(withoutSecrets('echo: Bearer abc123, via http://u:p@host/v1', [])).toBe(
      'echo: Bearer [redacted], via http://[redacted]@host/v1',
    );
  });
});
