import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forTerminal, parseDuration } from '@airlock/core';
import { afterAll, describe, expect, it } from 'vitest';
import { loadNotificationsConfig, NotificationsConfigError } from '../notifications/config.js';
import { CLI_NODE_ARGS } from '../testing/cli-entry.js';
import { parseServeArgs } from './serve-args.js';
import { checkListenHost, readServeSettings, ServeUsageError } from './serve-options.js';

const root = mkdtempSync(join(tmpdir(), 'airlock-serve-flags-'));
// A file where a data directory would go.
writeFileSync(join(root, 'a-file'), '');
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

describe('parseDuration', () => {
  it('takes a duration with its unit, within bounds', () => {
    expect(parseDuration('24h')).toBe(86_400_000);
    expect(parseDuration('1500ms')).toBe(1500);
    expect(parseDuration('1.5s', '--lease', { min: 100, max: 60_000 })).toBe(1500);
  });

  it.each([
    ['24', /--park-ttl wants a duration .*needs its unit/],
    ['', /--park-ttl wants a duration/],
    ['-5s', /--park-ttl wants a duration/],
    ['0s', /--park-ttl must be between 100ms and 365d/],
    ['400d', /--park-ttl must be between 100ms and 365d/],
  ])('refuses %j naming the flag', (text, message) => {
    expect(() => parseDuration(text, '--park-ttl', { min: 100, max: 365 * 86_400_000 })).toThrow(
      message,
    );
  });
});

// In-process: the checks serve.ts and serve-start.ts run before anything opens (refusalOf); the
// spawned cases below prove each stage's refusal reaches stderr so, exit 2, no stack.
describe('airlock serve refuses a value its setting cannot take, before opening a store', () => {
  it.each([
    [['--port', ''], '--port is empty'],
    [['--port', '0x10'], '--port wants a port number'],
    [['--port', '70000'], '--port wants a port number'],
    [['--host', ''], '--host is empty'],
    [['--data-dir', ''], '--data-dir is empty'],
    [['--body-limit', 'abc'], '--body-limit wants a number of bytes'],
    [['--body-limit', '0'], '--body-limit wants a number of bytes'],
    [['--body-limit=-5'], '--body-limit wants a number of bytes'],
    [['--park-ttl', '24'], '--park-ttl wants a duration'],
    [['--lease', '0s'], '--lease must be between'],
    [['--lease', '500ms'], '--lease must be between 1s and 1d'],
    [['--idle-timeout', '30d'], '--idle-timeout must be between'],
    [['--log-level', 'loud'], '--log-level wants one of'],
    [
      ['--no-metrics', '--metrics-listen', '127.0.0.1:9464'],
      '--no-metrics records no metrics, so --metrics-listen would serve nothing',
    ],
    [['--rate-limit', 'fast'], '--rate-limit wants N/B'],
    [['--max-feeds', '0'], '--max-feeds wants a number of feeds from 1 to 1000000, or off'],
    [['--model-timeout', '90'], '--model-timeout wants a duration'],
    [['--model-timeout', '500ms'], '--model-timeout must be between 1s and 1d'],
    [['--model-max-calls', '0'], '--model-max-calls wants a number of calls from 1 to 1024'],
    [['--model-max-calls', '1e3'], '--model-max-calls wants a number of calls from 1 to 1024'],
    [
      ['--model-base-urls', 'http://llm.internal/v1,http://u:s3cret@10.0.0.1/v1'],
      '--model-base-urls entry wants an http(s) URL without a user name or password (the key goes in OPENAI_API_KEY), not "http://…@10.0.0.1/v1"',
    ],
    [
      ['--model-base-urls', 'file:///etc/passwd'],
      '--model-base-urls entry wants an http(s) URL without a user name or password (the key goes in OPENAI_API_KEY), not "file:///etc/passwd"',
    ],
    [
      ['--model-base-urls', ' , '],
      '--model-base-urls wants comma-separated http(s) base URLs or *',
    ],
    // A password in the query, or one holding a ?, is no more shown than one in the authority.
    [
      ['--database-url', 'mysql://db.internal/app?password=s3cret'],
      '--database-url wants a postgres:// or postgresql:// URL, not "mysql://db.internal/app?…"',
    ],
    [
      ['--model-base-urls', 'http://u:s3cret?x@llm.internal/v1'],
      '--model-base-urls entry wants an http(s) URL without a user name or password (the key goes in OPENAI_API_KEY), not "http://…@llm.internal/v1"',
    ],
    [
      ['--database-url', 'postgres://app:s3cret@[::1/db'],
      '--database-url is not a URL the PostgreSQL driver can read: "postgres://…@[::1/db"',
    ],
    [
      ['--database-url', 'postgres://h/db?sslmode=verify-full&sslkey=/nonexistent/client.key'],
      '--database-url names an sslkey file the PostgreSQL driver cannot read: /nonexistent/client.key (ENOENT)',
    ],
    [['--database-url', 'notaurl'], '--database-url wants a postgres:// or postgresql:// URL'],
    [
      ['--database-url', 'mysql://app:s3cret@db.internal/app'],
      '--database-url wants a postgres:// or postgresql:// URL, not "mysql://…@db.internal/app"',
    ],
    [
      ['--host', '256.1.1.1'],
      '--host wants an address such as 127.0.0.1 or a name this machine resolves, not "256.1.1.1"',
    ],
    // 192.0.2.1 is a documentation address (RFC 5737): no machine has it.
    [
      ['--host', '192.0.2.1'],
      '--host wants an address this machine has (127.0.0.1, 0.0.0.0 for every interface, or one of its own), not "192.0.2.1" (EADDRNOTAVAIL)',
    ],
    [
      ['--metrics-listen', '192.0.2.1:9464'],
      '--metrics-listen wants an address this machine has (127.0.0.1, 0.0.0.0 for every interface, or one of its own), not "192.0.2.1" (EADDRNOTAVAIL)',
    ],
    [
      ['--model-base-urls', 'http://llm.internal/v1?key=s3cret'],
      '--model-base-urls entry wants a base URL without a query or fragment (the provider adds /chat/completions to it), not "http://llm.internal/v1?…"',
    ],
    [
      ['--model-base-urls', 'http://llm.internal/v1#s3cret'],
      '--model-base-urls entry wants a base URL without a query or fragment (the provider adds /chat/completions to it), not "http://llm.internal/v1#…"',
    ],
    [
      ['--data-dir', join(root, 'a-file')],
      `--data-dir wants a directory (made if missing), not "${join(root, 'a-file')}": ${join(root, 'a-file')} is a file`,
    ],
    [
      ['--data-dir', join(root, 'a-file', 'sub')],
      `--data-dir wants a directory (made if missing), not "${join(root, 'a-file', 'sub')}": ${join(root, 'a-file')} is a file`,
    ],
    // No user may make a folder in /proc/self, root included (EPERM; EACCES for others).
    [
      ['--data-dir', '/proc/self/airlock'],
      '--data-dir wants a directory (made if missing), not "/proc/self/airlock": cannot write in /proc/self (',
    ],
    [
      ['--retention-export-dir', join(root, 'a-file')],
      `--retention-export-dir wants a directory serve can write in (made if missing), not "${join(root, 'a-file')}": ${join(root, 'a-file')} is a file`,
    ],
    [
      ['--retention-export-dir', join(root, 'a-file', 'exports')],
      `--retention-export-dir wants a directory serve can write in (made if missing), not "${join(root, 'a-file', 'exports')}": ${join(root, 'a-file')} is a file`,
    ],
    [
      ['--retention-export-dir', '/proc/self/exports'],
      '--retention-export-dir wants a directory serve can write in (made if missing), not "/proc/self/exports": cannot write in /proc/self (',
    ],
    [['--bogus'], 'unknown option --bogus (see airlock serve --help)'],
    [
      ['--notifications', '/nonexistent/channels.json'],
      'invalid notifications configuration:\n  / invalid_json: cannot read /nonexistent/channels.json (ENOENT)\n',
    ],
  ])('%j', async (args, message) => {
    n += 1;
    const dataDir = join(root, `refused-${n}`);
    const refused = await refusalOf(['--data-dir', dataDir, ...args], {});
    expect(refused).toContain(`airlock serve: ${message}`);
    expect(refused).not.toMatch(/\n\s+at /);
    expect(refused).not.toContain('s3cret');
    expect(existsSync(dataDir)).toBe(false);
  });

  it.each([
    ['http://proxy-user:s3cret@llm.internal/v1', 'http://…@llm.internal/v1'],
    ['llm.internal/v1', 'llm.internal/v1'],
    ['ftp://llm.internal/v1', 'ftp://llm.internal/v1'],
  ])('refuses OPENAI_BASE_URL=%s, never showing its password', async (url, shown) => {
    n += 1;
    const dataDir = join(root, `refused-${n}`);
    const refused = await refusalOf(['--data-dir', dataDir], { OPENAI_BASE_URL: url });
    expect(refused).toContain(
      `airlock serve: OPENAI_BASE_URL wants an http(s) URL without a user name or password (the key goes in OPENAI_API_KEY), not "${shown}"`,
    );
    expect(refused).not.toContain('s3cret');
    expect(existsSync(dataDir)).toBe(false);
  });

  it.each([
    ['http://llm.internal/v1?api-version=s3cret', 'http://llm.internal/v1?…'],
    ['http://llm.internal/v1?', 'http://llm.internal/v1?…'],
    ['https://llm.internal/v1#s3cret', 'https://llm.internal/v1#…'],
  ])(
    'refuses OPENAI_BASE_URL=%s, whose query or fragment the path would land in',
    async (url, shown) => {
      n += 1;
      const dataDir = join(root, `refused-${n}`);
      const refused = await refusalOf(['--data-dir', dataDir], { OPENAI_BASE_URL: url });
      expect(refused).toContain(
        `airlock serve: OPENAI_BASE_URL wants a base URL without a query or fragment (the provider adds /chat/completions to it), not "${shown}"`,
      );
      expect(refused).not.toContain('s3cret');
      expect(existsSync(dataDir)).toBe(false);
    },
  );

  it('names AIRLOCK_RETENTION_EXPORT_DIR when the export directory came from it', async () => {
    const dataDir = join(root, 'export-env');
    const refused = await refusalOf(['--data-dir', dataDir], {
      AIRLOCK_RETENTION_EXPORT_DIR: join(root, 'a-file'),
    });
    expect(refused).toContain(
      `airlock serve: AIRLOCK_RETENTION_EXPORT_DIR wants a directory serve can write in (made if missing), not "${join(root, 'a-file')}": ${join(root, 'a-file')} is a file`,
    );
    expect(existsSync(dataDir)).toBe(false);
  });
});

// Each case starts the CLI in a child process: slow on a loaded machine, so a wide bound. They
// wait on their children alone, so they run side by side.
describe.concurrent('airlock serve, run, says a refusal on stderr with exit 2 and opens nothing', {
  timeout: 180_000,
}, () => {
  // One refusal of each stage: serve.ts's parse, the settings, the listen probe, the
  // notifications file.
  it.each([
    [['--bogus'], 'unknown option --bogus (see airlock serve --help)'],
    [
      ['--model-base-urls', 'http://llm.internal/v1,http://u:s3cret@10.0.0.1/v1'],
      '--model-base-urls entry wants an http(s) URL without a user name or password (the key goes in OPENAI_API_KEY), not "http://…@10.0.0.1/v1"',
    ],
    [
      ['--host', '192.0.2.1'],
      '--host wants an address this machine has (127.0.0.1, 0.0.0.0 for every interface, or one of its own), not "192.0.2.1" (EADDRNOTAVAIL)',
    ],
    [
      ['--notifications', '/nonexistent/channels.json'],
      'invalid notifications configuration:\n  / invalid_json: cannot read /nonexistent/channels.json (ENOENT)\n',
    ],
  ])('%j', async (args, message) => {
    const dataDir = join(root, `spawned-${args[0]}`);
    const refused = await runServe(['--data-dir', dataDir, ...args], {});
    expect(refused.output).toContain(`airlock serve: ${message}`);
    expect(refused.output).not.toMatch(/\n\s+at /);
    expect(refused.output).not.toContain('s3cret');
    expect(refused.code).toBe(2);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('names the variable when the value came from the environment', async () => {
    const refused = await runServe([], {
      AIRLOCK_PORT: 'abc',
      AIRLOCK_DATA_DIR: join(root, 'env'),
    });
    expect(refused.output).toContain('airlock serve: AIRLOCK_PORT wants a port number');
    expect(refused.code).toBe(2);
  });

  // Root may write in /proc as far as access() tells, so the check before start passes and the
  // kernel's own mkdir or open fails: still one line naming the path and the flag, exit 2.
  it.each([
    [['--data-dir', '/proc/airlock-data'], '--data-dir', '/proc/airlock-data'],
    [['--data-dir', '/proc'], '--data-dir', '/proc'],
    [[], 'the default data directory (--data-dir, AIRLOCK_DATA_DIR)', '.airlock'],
  ])('refuses a data directory it cannot make or write in: %j', async (args, source, shown) => {
    const refused = await runServe(['--port', '0', '--no-demo', ...args], {}, '/proc');
    expect(refused.output).toContain(
      `airlock serve: ${source} wants a directory (made if missing), not "${shown}": `,
    );
    expect(refused.output).not.toMatch(/\n\s+at |^airlock: /m);
    expect(refused.code).toBe(2);
  });

  // The export directory is made at the first prune: one root cannot make (access() grants it
  // /proc) let serve start, and that prune failed (Node's recursive mkdir spins there for good).
  it('refuses a retention export directory it cannot make, and makes nothing', async () => {
    const dataDir = join(root, 'export-refused');
    const refused = await runServe(
      [
        '--port',
        '0',
        '--no-demo',
        '--data-dir',
        dataDir,
        '--retention-export-dir',
        '/proc/airlock-exports',
      ],
      {},
    );
    expect(refused.output).toContain(
      'airlock serve: --retention-export-dir wants a directory serve can write in (made if missing), not "/proc/airlock-exports": ',
    );
    expect(refused.code).toBe(2);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('reads an empty variable as unset: loopback, ./.airlock', async () => {
    const cwd = join(root, 'empty-env');
    const started = await runServe(
      ['--port', '0', '--no-demo'],
      {
        AIRLOCK_HOST: '',
        AIRLOCK_DATA_DIR: '',
        AIRLOCK_PORT: '',
      },
      cwd,
    );
    expect(started.output).toMatch(/ready at http:\/\/127\.0\.0\.1:\d+/);
    expect(existsSync(join(cwd, '.airlock', 'airlock.sqlite'))).toBe(true);
    expect(existsSync(join(cwd, 'airlock.sqlite'))).toBe(false);
  });
});

/**
 * What `airlock serve` says of this command line and environment before anything opens, found
 * in-process by the functions serve.ts and serve-start.ts call, in their order (parse, settings,
 * listen probe, notifications file): the refusal as printed, or a line saying it would start.
 */
async function refusalOf(args: string[], env: Record<string, string>): Promise<string> {
  const flags = parseServeArgs(args);
  if ('refused' in flags) return `airlock serve: ${forTerminal(flags.refused)}\n`;
  const environment = { ...process.env, DATABASE_URL: '', ...env };
  try {
    const settings = readServeSettings(flags, environment);
    await checkListenHost(settings);
    if (settings.notificationsFile) {
      loadNotificationsConfig(settings.notificationsFile, environment);
    }
  } catch (error) {
    if (!(error instanceof ServeUsageError || error instanceof NotificationsConfigError)) {
      throw error;
    }
    return `airlock serve: ${error.message.split('\n').map(forTerminal).join('\n')}\n`;
  }
  return 'no refusal: every check passed, serve would start';
}

/**
 * Runs the built `airlock serve` with more environment; resolves with
 * what it printed once it exits, or once it serves (then stops it: a start
 * that should have been refused fails the test instead of hanging it).
 */
function runServe(
  args: string[],
  env: Record<string, string>,
  cwd = root,
): Promise<{ code: number | null; output: string }> {
  mkdirSync(cwd, { recursive: true });
  return new Promise((settle) => {
    const child = spawn(process.execPath, [...CLI_NODE_ARGS, 'serve', ...args], {
      cwd,
      env: { ...process.env, DATABASE_URL: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const read = (chunk: Buffer) => {
      output += chunk;
      if (/ready at http/.test(output) && /tokens/.test(output)) child.kill('SIGTERM');
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    // 'close', not 'exit': at 'exit' the pipes may still hold what it printed last (the refusal).
    child.once('close', (code) => settle({ code, output }));
  });
}
