import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hideUrlCredentials } from './url-credentials.js';

describe('hideUrlCredentials', () => {
  it('hides the password of the user information, whatever it holds', () => {
    expect(hideUrlCredentials('postgres://airlock:hunter2@db:5432/airlock')).toBe(
      'postgres://***@db:5432/airlock',
    );
    expect(hideUrlCredentials('postgresql://u:p@ss@db/airlock')).toBe(
      'postgresql://***@db/airlock',
    );
    expect(hideUrlCredentials('postgres://db/airlock')).toBe('postgres://db/airlock');
  });

  it('hides the value of every query parameter that carries a credential, and keeps the rest', () => {
    expect(
      hideUrlCredentials(
        'postgres://airlock@db/airlock?sslmode=require&password=hunter2&sslpassword=k3y&application_name=x',
      ),
    ).toBe(
      'postgres://***@db/airlock?sslmode=require&password=***&sslpassword=***&application_name=x',
    );
    // However the name is spelled or encoded.
    expect(
      hideUrlCredentials('postgres://db/a?PassWord=hunter2&pass%77ord=hunter2&auth_token=t'),
    ).toBe('postgres://db/a?PassWord=***&pass%77ord=***&auth_token=***');
    expect(hideUrlCredentials('postgres:///a?host=/run/postgresql&password=hunter2#x')).toBe(
      'postgres:///a?host=/run/postgresql&password=***',
    );
  });

  it('hides the credentials of an OTLP endpoint', () => {
    expect(hideUrlCredentials('https://tenant:s3cret@collector:4318/v1/traces?api_key=k')).toBe(
      'https://***@collector:4318/v1/traces?api_key=***',
    );
    expect(hideUrlCredentials('http://127.0.0.1:4318/v1/traces')).toBe(
      'http://127.0.0.1:4318/v1/traces',
    );
  });
});

describe('hideUrlCredentials on a URL no parser accepts', () => {
  it('hides a password that holds a ?, # or / not percent-encoded', () => {
    expect(hideUrlCredentials('http://tenant:pa?ss@collector:4318')).toBe(
      'http://***@collector:4318',
    );
    expect(hideUrlCredentials('http://tenant:pa#ss@collector:4318/v1')).toBe(
      'http://***@collector:4318/v1',
    );
    expect(hideUrlCredentials('postgres://u:pa/ss?w@db:5432/airlock?password=x')).toBe(
      'postgres://***@db:5432/airlock?password=***',
    );
  });

  it('hides the user information of a URL written without its scheme', () => {
    expect(hideUrlCredentials('tenant:s3cret@collector:4318')).toBe('***@collector:4318');
    expect(hideUrlCredentials('collector:4318/v1/traces')).toBe('collector:4318/v1/traces');
  });
});

describe('hideUrlCredentials on any password', () => {
  it('never shows a run of the password, whatever marks it holds', () => {
    // Upper-case letters, which neither the user, the host nor the rest of the URL holds.
    const marks = 'QWXZ?#/@:%&=;+ '.split('');
    fc.assert(
      fc.property(
        fc.constantFrom('postgres://', 'http://', 'https://', ''),
        fc.stringMatching(/^[a-z0-9.]{1,12}$/),
        fc.string({ minLength: 6, unit: fc.constantFrom(...marks) }),
        fc.constantFrom('', '/db', '/v1/traces?x=1', '?sslmode=require', '#part'),
        (scheme, user, password, tail) => {
          const secret = /[QWXZ]{3,}/.exec(password)?.[0];
          fc.pre(secret !== undefined);
          const shown = hideUrlCredentials(`${scheme}${user}:${password}@db.example:5432${tail}`);
          expect(shown).not.toContain(secret);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
