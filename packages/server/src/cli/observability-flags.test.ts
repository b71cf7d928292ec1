import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_NODE_ARGS } from '../testing/cli-entry.js';
import { parseListenAddress } from './listen-address.js';

const run = promisify(execFile);

describe('parseListenAddress', () => {
  it('reads host:port, a bracketed IPv6 host, and a bare :port on loopback', () => {
    expect(parseListenAddress('0.0.0.0:9464', '--metrics-listen')).toEqual({
      host: '0.0.0.0',
      port: 9464,
    });
    expect(parseListenAddress('[::1]:9464', '--metrics-listen')).toEqual({
      host: '::1',
      port: 9464,
    });
    expect(parseListenAddress(':9464', '--metrics-listen')).toEqual({
      host: '127.0.0.1',
      port: 9464,
    });
  });

  it.each(['9464', 'localhost', 'host:99999', 'host:port', '::1:9464', ''])(
    'refuses %j naming the flag',
    (text) => {
      expect(() => parseListenAddress(text, '--metrics-listen')).toThrow(
        /^--metrics-listen wants host:port/,
      );
    },
  );
});

describe('airlock serve refuses a bad observability flag before opening a store', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function serve(args: string[], env: NodeJS.ProcessEnv = {}) {
    dir = mkdtempSync(join(tmpdir(), 'airlock-flags-'));
    const dataDir = join(dir, 'store');
    const outcome = await run(
      process.execPath,
      [...CLI_NODE_ARGS, 'serve', '--data-dir', dataDir, '--port', '0', ...args],
      { env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: '', ...env }, timeout: 60_000 },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    return { ...outcome, created: existsSync(dataDir) };
  }

  it('a --metrics-listen that is not host:port', async () => {
    const { code, stderr, created } = await serve(['--metrics-listen', '9464']);
    expect(code).toBe(2);
    expect(stderr).toContain('--metrics-listen wants host:port (e.g. 127.0.0.1:9464), not 9464');
    expect(created).toBe(false);
  }, 90_000);

  it('an --otlp-endpoint that is not an http(s) URL: a usage error (exit 2), as for any bad flag', async () => {
    const { code, stderr, created } = await serve(['--otlp-endpoint', 'ftp://collector:4318']);
    expect(code).toBe(2);
    expect(stderr).toBe(
      'airlock serve: --otlp-endpoint wants an http(s) URL such as http://127.0.0.1:4318, not ftp://collector:4318\n',
    );
    expect(created).toBe(false);
  }, 90_000);

  it('an OTEL_EXPORTER_OTLP_ENDPOINT that is not a URL, naming the variable (exit 2)', async () => {
    const { code, stderr, created } = await serve([], {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318',
    });
    expect(code).toBe(2);
    expect(stderr).toBe(
      'airlock serve: OTEL_EXPORTER_OTLP_ENDPOINT wants an http(s) URL such as http://127.0.0.1:4318, not collector:4318\n',
    );
    expect(created).toBe(false);
  }, 90_000);
});
