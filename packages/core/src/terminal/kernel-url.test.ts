import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { settingErrorOf } from './fixtures/setting-error-of.js';
import { DEFAULT_KERNEL_URL, readKernelUrl, shownKernelUrl } from './kernel-url.js';

describe('readKernelUrl', () => {
  it('takes --url over AIRLOCK_URL, and the local kernel when neither says', () => {
    const env = { AIRLOCK_URL: 'https://airlock.example/base' };
    expect(readKernelUrl('http://10.0.0.2:4820', env)).toEqual({
      url: 'http://10.0.0.2:4820',
      source: '--url',
    });
    expect(readKernelUrl(undefined, env)).toEqual({
      url: 'https://airlock.example/base',
      source: 'AIRLOCK_URL',
    });
    expect(readKernelUrl(undefined, {})).toEqual({ url: DEFAULT_KERNEL_URL, source: 'default' });
  });

  it.each(['', ' ', '\t \n'])('counts an empty or blank AIRLOCK_URL (%j) as unset', (value) => {
    expect(readKernelUrl(undefined, { AIRLOCK_URL: value })).toEqual({
      url: 'http://127.0.0.1:4820',
      source: 'default',
    });
  });

  it('drops trailing slashes', () => {
    expect(readKernelUrl('https://airlock.example/base//', {}).url).toBe(
      'https://airlock.example/base',
    );
  });

  it('refuses a URL without http:// or https://, naming the flag and guessing the fix', () => {
    const error = settingErrorOf(() => readKernelUrl('localhost:7070', {}));
    expect(error.code).toBe('invalid_kernel_url');
    expect(error.source).toBe('--url');
    expect(error.message).toBe(
      `--url wants the kernel's base URL with http:// or https://, such as http://127.0.0.1:4820, not "localhost:7070" (http://localhost:7070?)`,
    );
  });

  it.each([
    ['ftp://127.0.0.1', 'not "ftp://127.0.0.1"'],
    ['ws://127.0.0.1:4820', 'not "ws://127.0.0.1:4820"'],
    ['', 'not ""'],
    ['not a url', 'not "not a url"'],
  ])('refuses %j without a guess where the scheme is not what is missing', (given, ending) => {
    const error = settingErrorOf(() => readKernelUrl(given, {}));
    expect(error.message).toMatch(
      /^--url wants the kernel's base URL with http:\/\/ or https:\/\//,
    );
    expect(error.message.endsWith(ending)).toBe(true);
  });

  it('names AIRLOCK_URL when the variable holds the bad value, even beside a good default', () => {
    const error = settingErrorOf(() => readKernelUrl(undefined, { AIRLOCK_URL: '127.0.0.1:7070' }));
    expect(error.source).toBe('AIRLOCK_URL');
    expect(error.message).toMatch(/^AIRLOCK_URL wants the kernel's base URL with http:/);
    expect(error.message).toContain('(http://127.0.0.1:7070?)');
  });

  it.each([
    [
      'admin:s3cret@kernel.example:4820',
      'not "…@kernel.example:4820" (http://…@kernel.example:4820?)',
    ],
    ['ftp://admin:s3cret@kernel.example', 'not "ftp://…@kernel.example"'],
    ['ftp://admin:s3/cr@t@kernel.example', 'not "ftp://…@kernel.example"'],
  ])('does not quote back what may be credentials in %j', (given, ending) => {
    for (const [flag, env] of [
      [given, {}],
      [undefined, { AIRLOCK_URL: given }],
    ] as const) {
      const error = settingErrorOf(() => readKernelUrl(flag, env));
      expect(error.message).not.toContain('s3');
      expect(error.message).not.toContain('admin');
      expect(error.message.endsWith(ending)).toBe(true);
    }
  });

  it('never quotes a secret written before an @, whatever else the value holds', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (before, after) => {
        const given = `${before}SECRET@${after.replaceAll('@', '')}`;
        try {
          readKernelUrl(given, {});
        } catch (error) {
          expect((error as Error).message).not.toContain('SECRET');
        }
      }),
    );
  });
});

describe('shownKernelUrl', () => {
  it('shows a URL without its user and password, the rest as given', () => {
    expect(shownKernelUrl('http://127.0.0.1:4820')).toBe('http://127.0.0.1:4820');
    expect(shownKernelUrl('https://admin:s3cret@kernel.example/base')).toBe(
      'https://…@kernel.example/base',
    );
    expect(shownKernelUrl('https://admin:s3c@ret@kernel.example/a@b')).toBe(
      'https://…@kernel.example/a@b',
    );
    expect(shownKernelUrl('http://token@kernel.example')).toBe('http://…@kernel.example');
  });
});
