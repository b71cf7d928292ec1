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

/** This process's environment without the variables that name a store. */
function withoutStoreVariables(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.DATABASE_URL;
  delete env.AIRLOCK_DATA_DIR;
  return env;
}

/**
 * Starts a kernel as `env` and `args` say, from a folder of its own, then runs the
 * `token create` command its banner prints there, without serve's variables (as when
 * they were set on serve's command line alone); resolves with that command and its stdout.
 */
async function mintAsPrinted(args: string[], env: NodeJS.ProcessEnv = {}) {
  const cwd = mkdtempSync(join(tmpdir(), 'airlock-banner-'));
  try {
    const banner = await bannerOf(args, cwd, { ...withoutStoreVariables(), ...env });
    const command = /make more with `[^`]*? (token create [^`]+)`/.exec(banner)?.[1];
    if (!command) throw new Error(`no token command in: ${banner}`);
    const minted = await run(process.execPath, [...CLI_NODE_ARGS, ...command.split(' ')], {
      cwd,
      env: withoutStoreVariables(),
    });
    return { command, stdout: minted.stdout };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

/** Starts `airlock serve` with these flags and resolves with its banner once it is printed. */
async function bannerOf(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = withoutStoreVariables(),
): Promise<string> {
  const child = spawn(
    process.execPath,
    [...CLI_NODE_ARGS, 'serve', '--port', '0', '--no-demo', '--log-level', 'error', ...args],
    { stdio: ['ignore', 'ignore', 'pipe'], cwd, env },
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
  it('names a PostgreSQL store, its password left out', () => {
    const store = (databaseUrl: string) => printedStoreOption({ dataDir: '.airlock', databaseUrl });
    expect(store('postgres://air@db.internal:5432/airlock')).toBe(
      ' --database-url postgres://air@db.internal:5432/airlock',
    );
    expect(store('postgresql://air:s3cr%40t@db.internal/airlock?sslmode=require')).toBe(
      " --database-url 'postgresql://air:<password>@db.internal/airlock?sslmode=require'",
    );
    expect(store('postgres://db/airlock?password=hunter2')).toBe(
      " --database-url 'postgres://db/airlock?password=<password>'",
    );
  });

  it('names a SQLite directory other than ./.airlock, and nothing for that one', () => {
    const store = (dataDir: string) => printedStoreOption({ dataDir, databaseUrl: undefined });
    expect(store('/srv/air lock')).toBe(" --data-dir '/srv/air lock'");
    expect(store('.airlock')).toBe('');
  });

  it('a kernel given AIRLOCK_DATA_DIR on its command line prints a token command that reaches its store', {
    timeout: 60_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-store-'));
    try {
      const { command, stdout } = await mintAsPrinted([], { AIRLOCK_DATA_DIR: dir });
      expect(command).toBe(`token create --kind member --data-dir ${dir}`);
      expect(stdout).toMatch(/^alk_member_\S+\n$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(skip !== null)(
    'a kernel on PostgreSQL (--database-url or DATABASE_URL) prints a token command that reaches its store',
    { timeout: 90_000 },
    async () => {
      const byFlag = await freshMigratedPostgresDatabase();
      const flagged = await mintAsPrinted(['--database-url', byFlag]);
      expect(flagged.command).toBe(`token create --kind member --database-url ${byFlag}`);
      expect(flagged.stdout).toMatch(/^alk_member_\S+\n$/);
      const byVariable = await freshMigratedPostgresDatabase();
      const variable = await mintAsPrinted([], { DATABASE_URL: byVariable });
      expect(variable.command).toBe(`token create --kind member --database-url ${byVariable}`);
      expect(variable.stdout).toMatch(/^alk_member_\S+\n$/);
    },
  );
});
