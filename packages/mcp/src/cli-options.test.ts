import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import {
  bridgeWorkspace,
  kernelUrl,
  readPolicy,
  refuseUnreadGatewayFlags,
  refuseUnreadRules,
  requestTimeout,
  serversFrom,
  UsageError,
} from './cli-options.js';

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

  it('refuses a URL that is not http(s) as a usage error (exit 2) naming where it came from, as the operator commands do', () => {
    for (const [url, quoted] of [
      ['not a url', '"not a url"'],
      ['127.0.0.1:4820', '"127.0.0.1:4820" (http://127.0.0.1:4820?)'],
      ['ftp://127.0.0.1', '"ftp://127.0.0.1"'],
      ['ws://127.0.0.1:4820', '"ws://127.0.0.1:4820"'],
      ['', '""'],
    ]) {
      const error = usageErrorOf(() => kernelUrl(url));
      expect(error.status).toBe(2);
      expect(error.message).toBe(
        `--url wants the kernel's base URL with http:// or https://, such as http://127.0.0.1:4820, not ${quoted}`,
      );
    }
  });

  it('names AIRLOCK_URL when the bad value came from it, quoting it without its credentials', () => {
    vi.stubEnv('AIRLOCK_URL', 'ftp://user:secret@127.0.0.1');
    const error = usageErrorOf(() => kernelUrl(undefined));
    expect(error.message).toBe(
      `AIRLOCK_URL wants the kernel's base URL with http:// or https://, such as http://127.0.0.1:4820, not "ftp://…@127.0.0.1"`,
    );
  });
});

describe('requestTimeout', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('reads --timeout as the operator commands do: a duration with its unit, from 100ms to 1h', () => {
    expect(requestTimeout('5s')).toBe(5000);
    expect(requestTimeout('500ms')).toBe(500);
    expect(requestTimeout('1.5s')).toBe(1500);
    expect(requestTimeout('2m')).toBe(120_000);
    expect(requestTimeout('100ms')).toBe(100);
    expect(requestTimeout('1h')).toBe(3_600_000);
  });

  it('takes --timeout over AIRLOCK_TIMEOUT, and 30s when neither is set (an empty variable counts as unset)', () => {
    vi.stubEnv('AIRLOCK_TIMEOUT', '1500ms');
    expect(requestTimeout('2s')).toBe(2000);
    expect(requestTimeout(undefined)).toBe(1500);
    vi.stubEnv('AIRLOCK_TIMEOUT', '');
    expect(requestTimeout(undefined)).toBe(30_000);
    vi.stubEnv('AIRLOCK_TIMEOUT', '  ');
    expect(requestTimeout(undefined)).toBe(30_000);
  });

  it.each([
    [
      '10',
      '--timeout wants a duration such as 24h, 30m, 90s or 500ms, not "10" (a number needs its unit: 10s? 10ms?)',
    ],
    ['', '--timeout wants a duration such as 24h, 30m, 90s or 500ms, not ""'],
    ['soon', '--timeout wants a duration such as 24h, 30m, 90s or 500ms, not "soon"'],
    ['-1s', '--timeout wants a duration such as 24h, 30m, 90s or 500ms, not "-1s"'],
    ['0s', '--timeout must be between 100ms and 1h, not "0s"'],
    ['50ms', '--timeout must be between 100ms and 1h, not "50ms"'],
    ['2h', '--timeout must be between 100ms and 1h, not "2h"'],
  ])('refuses --timeout %j as a usage error (exit 2) naming the flag', (value, message) => {
    const error = usageErrorOf(() => requestTimeout(value));
    expect(error.status).toBe(2);
    expect(error.message).toBe(message);
  });

  it('names AIRLOCK_TIMEOUT when the bad value came from it', () => {
    vi.stubEnv('AIRLOCK_TIMEOUT', '30');
    const error = usageErrorOf(() => requestTimeout(undefined));
    expect(error.status).toBe(2);
    expect(error.message).toMatch(
      /^AIRLOCK_TIMEOUT wants a duration .*not "30" \(a number needs its unit/,
    );
  });
});

describe('bridgeWorkspace', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('takes --workspace over AIRLOCK_WORKSPACE, and none when neither is set', () => {
    vi.stubEnv('AIRLOCK_WORKSPACE', 'ws_env');
    expect(bridgeWorkspace('ws_flag')).toBe('ws_flag');
    expect(bridgeWorkspace(undefined)).toBe('ws_env');
    vi.stubEnv('AIRLOCK_WORKSPACE', '');
    expect(bridgeWorkspace(undefined)).toBeUndefined();
  });
});

describe('refuseUnreadGatewayFlags', () => {
  it.each([
    [{ port: '5000' }, '--port: read only with --http'],
    [{ stdio: true, host: '0.0.0.0' }, '--host: read only with --http'],
    [
      { 'allow-origin': ['https://app.example'], 'session-idle': '60' },
      '--allow-origin, --session-idle: read only with --http',
    ],
    [
      { 'max-sessions': '4', 'max-sessions-per-credential': '2' },
      '--max-sessions-per-credential, --max-sessions: read only with --http',
    ],
    [
      { http: true, token: 'alk_agent_x' },
      "--token is the --stdio client's credential; over --http each client sends its own as a bearer token",
    ],
  ])(
    'refuses %j, which the chosen front would not read, as a usage error (exit 2)',
    (values, message) => {
      const error = usageErrorOf(() => refuseUnreadGatewayFlags(values));
      expect(error.status).toBe(2);
      expect(error.message).toBe(message);
    },
  );

  it('takes the flags each front reads', () => {
    expect(() => refuseUnreadGatewayFlags({ stdio: true, token: 'alk_agent_x' })).not.toThrow();
    expect(() =>
      refuseUnreadGatewayFlags({ http: true, host: '0.0.0.0', port: '4821', 'max-sessions': '8' }),
    ).not.toThrow();
  });
});

describe('serversFrom', () => {
  it('refuses --name with --config (the file names its servers) as a usage error (exit 2)', async () => {
    const error = await serversFrom({ config: 'mcp-servers.json', name: 'fs' }, []).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe(
      'give --config FILE or --name NAME -- command [args...], not both',
    );
  });
});

describe('refuseUnreadRules', () => {
  it("refuses --rules for a --stdio client with an agent's credential, which never reads it", () => {
    const error = usageErrorOf(() => refuseUnreadRules('rules.json', 'alk_agent_x'));
    expect(error.status).toBe(2);
    expect(error.message).toMatch(
      /^--rules sets the runs of a member's credential; .* is an agent's/,
    );
  });

  it('takes --rules for a member over stdio, and over --http (each client says who it is)', () => {
    expect(() => refuseUnreadRules('rules.json', 'alk_member_x')).not.toThrow();
    expect(() => refuseUnreadRules('rules.json', null)).not.toThrow();
    expect(() => refuseUnreadRules(undefined, 'alk_agent_x')).not.toThrow();
  });
});

describe('readPolicy', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-mcp-rules-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, value: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(value));
    return path;
  };

  it('refuses a file that is not JSON naming where, never quoting the text around it', async () => {
    const path = join(dir, 'broken.json');
    writeFileSync(path, '{"approval_mode": "ask", "token": sk-live-SECRET}');
    const error = await readPolicy(path).catch((caught: unknown) => caught);
    expect((error as UsageError).message).toMatch(
      /is not JSON \((line 1, column \d+|an unexpected "s")\)$/,
    );
    expect((error as UsageError).message).not.toContain('sk-live');
  });

  it('reads a mode and its rules', async () => {
    const rules = [{ tool: 'fs__write_file', verdict: 'ask' }];
    await expect(
      readPolicy(file('good.json', { approval_mode: 'rules', approval_rules: rules })),
    ).resolves.toEqual({ approval_mode: 'rules', approval_rules: rules });
  });

  it('refuses, before any server starts, a rule the kernel would refuse at every first call', async () => {
    const path = file('bad.json', {
      approval_mode: 'rules',
      approval_rules: [
        { tool: 'fs__*', verdict: 'allow' },
        { tool: 'x', verdict: 'maybe' },
      ],
    });
    const error = await readPolicy(path).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toMatch(
      new RegExp(`^${path.replaceAll('/', '\\/')}: \\/approval_rules\\/1\\/verdict: `),
    );
  });
});
