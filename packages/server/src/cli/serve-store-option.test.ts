import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CLI_NODE_ARGS } from '../testing/cli-entry.js';
import { freshMigratedPostgresDatabase, postgresSkipReason } from '../testing/postgres.js';
import { printedStoreOption } from './serve-store-option.js';

const run = promisify(execFile);
const skip = await postgresSkipReason();

/** Starts `airlock serve` with these flags and resolves with its banner once it is printed. */
async function bannerOf(args: string[], cwd: string): Promise<string> {
  const child = spawn(
    process.execPath,
    [...CLI_NODE_ARGS, 'serve', '--port', '0', '--no-demo', '--log-level', 'error', ...args],
    { stdio: ['ignore', 'ignore', 'pipe'], cwd },
  );
  try {
    return await new Promise<string>((resolveBanner, reject) => {
      let text = '';
      child.stderr.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (/make more with `[^`]+`/.test(text)) resolveBanner(text);
      });
      child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${text}`)));
    });
  } finally {
    child.kill('SIGTERM');
  }
}

describe('the store option the banner puts in the commands it prints', () => {
  it('names a --database-url store by that flag, its password left out', () => {
    expect(printedStoreOption({ 'database-url': 'postgres://air@db.internal:5432/airlock' })).toBe(
      ' --database-url postgres://air@db.internal:5432/airlock',
    );
    const printed = printedStoreOption({
      'database-url': 'postgresql://air:s3cr%40t@db.internal/airlock?sslmode=require',
    });
    expect(printed).toBe(
      " --database-url 'postgresql://air:<password>@db.internal/airlock?sslmode=require'",
    );
    expect(printedStoreOption({ 'database-url': 'postgres://db/airlock?password=hunter2' })).toBe(
      " --database-url 'postgres://db/airlock?password=<password>'",
    );
  });

  it('names a --data-dir store as before, and nothing when the environment chose the store', () => {
    expect(printedStoreOption({ 'data-dir': '/srv/air lock' })).toBe(" --data-dir '/srv/air lock'");
    expect(printedStoreOption({})).toBe('');
  });

  it.skipIf(skip !== null)(
    'a kernel started with --database-url prints a token command that reaches its store',
    { timeout: 60_000 },
    async () => {
      const url = await freshMigratedPostgresDatabase();
      // A folder with no .airlock: a command that missed the flag would look for one here.
      const cwd = mkdtempSync(join(tmpdir(), 'airlock-banner-'));
      try {
        const env = { ...process.env };
        delete env.DATABASE_URL;
        const banner = await bannerOf(['--database-url', url], cwd);
        const command = /make more with `[^`]*? (token create [^`]+)`/.exec(banner)?.[1];
        if (!command) throw new Error(`no token command in: ${banner}`);
        expect(command).toBe(`token create --kind member --database-url ${url}`);
        const minted = await run(process.execPath, [...CLI_NODE_ARGS, ...command.split(' ')], {
          cwd,
          env,
        });
        expect(minted.stdout).toMatch(/^alk_member_\S+\n$/);
      } finally {
        rmSync(cwd, { recursive: true, force: true });
      }
    },
  );
});
