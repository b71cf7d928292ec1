import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_NODE_ARGS } from '../testing/cli-entry.js';
import { runLocalInProcess } from '../testing/cli-in-process.js';
import { type KernelProcess, startKernelProcess } from '../testing/kernel-process.js';
import { prlimitSkipReason, runLocalCli } from '../testing/operator-cli.js';

const root = mkdtempSync(join(tmpdir(), 'airlock-token-cli-'));
chmodSync(root, 0o755);
/** The directory the commands run in: its ./.airlock is the default store. */
const cwd = join(root, 'project');
mkdirSync(cwd);
let kernel: KernelProcess;

beforeAll(async () => {
  kernel = await startKernelProcess({ dataDir: join(cwd, '.airlock') });
}, 120_000);
afterAll(async () => {
  await kernel?.stop();
  rmSync(root, { recursive: true, force: true });
});

if (prlimitSkipReason) {
  console.warn(`[airlock tests] skipping the full-disk token case: ${prlimitSkipReason}`);
}

/** Runs the built `airlock` in `cwd` in a child process (see runLocalCli). */
const spawned = (args: string[], options: { maxFileBytes?: number } = {}) =>
  runLocalCli(args, { ...options, cwd });
/** Runs `airlock` in `cwd` in this process, as cli.ts runs it (see runLocalInProcess). */
const airlock = (args: string[]) => runLocalInProcess(args, { cwd });

/** Runs the real `airlock` in `cwd` with `input` on its standard input. */
function withInput(args: string[], input: string) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((settle) => {
    const child = spawn(process.execPath, [...CLI_NODE_ARGS, ...args], {
      cwd,
      env: { ...process.env, DATABASE_URL: '', AIRLOCK_DATA_DIR: '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (code) => settle({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('airlock token', { timeout: 60_000 }, () => {
  it('reads an empty AIRLOCK_DATA_DIR as unset: ./.airlock, where serve looks, not the current directory', async () => {
    const created = await spawned(['token', 'create', '--kind', 'member', '--label', 'from-env']);
    expect(created.code, created.stderr).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^alk_member_/);
    // The token was made in the store the kernel serves: the kernel takes it.
    const self = await fetch(
      `${kernel.url}/api/v1/workspaces/${kernel.workspaceId}/credentials/self`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    expect(self.status).toBe(200);
    const listed = await airlock(['token', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('from-env');
    expect(existsSync(join(cwd, 'airlock.sqlite'))).toBe(false);
  });

  it('create refuses a label with a tab, and list escapes one an older store kept', async () => {
    const refused = await spawned([
      'token',
      'create',
      '--kind',
      'member',
      '--label',
      'a\tactive\tb',
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('without a control character');
    const created = await airlock(['token', 'create', '--kind', 'member', '--label', 'tab-me']);
    expect(created.code, created.stderr).toBe(0);
    // A store written before labels were one line may hold one with a tab.
    const file = new SqliteDatabase(join(cwd, '.airlock', 'airlock.sqlite'));
    try {
      file.prepare("update credentials set label = ? where label = 'tab-me'").run('a\tactive\tb');
    } finally {
      file.close();
    }
    const listed = await airlock(['token', 'list']);
    const row = listed.stdout.split('\n').find((line) => line.endsWith('b'));
    expect(row?.split('\t').slice(1)).toEqual(['member', 'approver', 'active', 'a\\tactive\\tb']);
  });

  it('revoke - reads the token from standard input; one on the command line warns', async () => {
    const made = async (label: string) =>
      (await airlock(['token', 'create', '--kind', 'member', '--label', label])).stdout.trim();
    const piped = await withInput(['token', 'revoke', '-'], `${await made('piped')}\n`);
    expect(piped).toMatchObject({ code: 0, stderr: 'revoked\n' });
    const onArgv = await spawned(['token', 'revoke', await made('on-argv')]);
    expect(onArgv.code).toBe(0);
    expect(onArgv.stderr).toContain(
      'airlock token revoke: warning: a secret on the command line can be read by other users (ps)',
    );
    const listed = (await airlock(['token', 'list'])).stdout;
    expect(listed).toMatch(/\trevoked\tpiped\n/);
    expect(listed).toMatch(/\trevoked\ton-argv\n/);
  });

  it('refuses an empty --data-dir or --database-url with exit 2, as serve does, creating nothing', async () => {
    for (const args of [
      ['token', 'list', '--data-dir='],
      ['token', 'create', '--kind', 'member', '--database-url', ''],
      ['backup', join(root, 'copy.sqlite'), '--data-dir', ''],
      ['restore', join(root, 'copy.sqlite'), '--data-dir='],
    ]) {
      const refused = await airlock(args);
      const flag = args.some((arg) => arg.startsWith('--database-url'))
        ? 'database-url'
        : 'data-dir';
      expect({ args, code: refused.code, stderr: refused.stderr }).toEqual({
        args,
        code: 2,
        stderr: `airlock ${args[0]}: --${flag} is empty: give it a value, or leave the flag out\n`,
      });
    }
    expect(existsSync(join(cwd, 'airlock.sqlite'))).toBe(false);
    expect(existsSync(join(root, 'copy.sqlite'))).toBe(false);
  });

  it.skipIf(prlimitSkipReason !== null)(
    'on a full disk says store_unavailable with the reason, exit 1, no stack, and makes no credential',
    async () => {
      // The kernel holds the store: the WAL it keeps open is what a new write must grow.
      const refused = await spawned(['token', 'create', '--kind', 'member', '--label', 'no-room'], {
        maxFileBytes: 0,
      });
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toMatch(
        /^airlock token create: store_unavailable: the store is unavailable \(.+\); nothing was changed, retry later\n$/,
      );
      const listed = await airlock(['token', 'list']);
      expect(listed.code).toBe(0);
      expect(listed.stdout).not.toContain('no-room');
    },
  );
});
