import { afterEach, describe, expect, it, vi } from 'vitest';
import { kernelUrl, UsageError } from './cli-options.js';

/** The usage error a call throws (it must throw one). */
function usageErrorOf(run: () => unknown): UsageError {
  try {
    run();
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error('expected a UsageError');
}

describe('kernelUrl', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('takes --url over AIRLOCK_URL, and the local kernel when neither is set (an empty variable counts as unset)', () => {
    vi.stubEnv('AIRLOCK_URL', 'https://airlock.example/base');
    expect(kernelUrl('http://10.0.0.2:4820')).toBe('http://10.0.0.2:4820');
    expect(kernelUrl(undefined)).toBe('https://airlock.example/base');
    vi.stubEnv('AIRLOCK_URL', '');
    expect(kernelUrl(undefined)).toBe('http://127.0.0.1:4820');
  });

  it('refuses a URL that is not http(s) as a usage error (exit 2) naming where it came from, without quoting it', () => {
    for (const url of [
      'not a url',
      '127.0.0.1:4820',
      'ftp://127.0.0.1',
      'ws://127.0.0.1:4820',
      '',
    ]) {
      const error = usageErrorOf(() => kernelUrl(url));
      expect(error.status).toBe(2);
      expect(error.message).toBe(
        "--url must be the kernel's http(s) base URL, such as http://127.0.0.1:4820",
      );
    }
    vi.stubEnv('AIRLOCK_URL', 'ftp://user:secret@127.0.0.1');
    const error = usageErrorOf(() => kernelUrl(undefined));
    expect(error.message).toMatch(/^AIRLOCK_URL must be the kernel's http\(s\) base URL/);
    expect(error.message).not.toContain('secret');
  });
});
