import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../store/store.js';
import { CLI_NODE_ARGS } from '../testing/cli-entry.js';
import { ensureLocalWorkspace } from './local-workspace.js';

const run = promisify(execFile);

/** Runs the real `airlock` CLI; returns its exit code and output. */
async function airlock(args: string[], env: Record<string, string> = {}, cwd?: string) {
  try {
    const { stdout, stderr } = await run(process.execPath, [...CLI_NODE_ARGS, ...args], {
      env: { ...process.env, ...env },
      ...(cwd ? { cwd } : {}),
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('the airlock command as a new user meets it', () => {
  let root: string;
  let existing: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'airlock-cli-'));
    existing = join(root, 'store');
    const store = await Store.open({ dataDir: existing });
    await ensureLocalWorkspace(store);
    await store.close();
  });
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('says unknown command and exits 2', async () => {
    const result = await airlock(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown command frobnicate');
  });

  it('refuses runs list --state bogus as a usage error (exit 2) before calling anything', async () => {
    const result = await airlock(['runs', 'list', '--state', 'bogus'], {
      AIRLOCK_URL: 'http://127.0.0.1:9',
      AIRLOCK_TOKEN: 'x',
      AIRLOCK_WORKSPACE: 'ws',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /--state wants one of running, completed, canceled, failed, not bogus/,
    );
  });

  it('token list --data-dir <typo> refuses the missing store and creates nothing', async () => {
    const typo = join(root, 'stroe');
    const result = await airlock(['token', 'list', '--data-dir', typo]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`no Airlock store in ${typo}`);
    expect(existsSync(typo)).toBe(false);
  });

  it('suggests a command a shell reads back whole, from a folder outside the checkout', async () => {
    const typo = join(root, "ana's store");
    const result = await airlock(['token', 'list', '--data-dir', typo], {}, root);
    expect(result.code).toBe(1);
    const suggested = /or create it with `([^`]+)`/.exec(result.stderr)?.[1];
    if (!suggested) throw new Error(`no suggested command in: ${result.stderr}`);
    // What sh makes of it: the words as typed, the script a path that exists from here.
    const { stdout } = await run('sh', ['-c', `set -- ${suggested}; printf '%s\\0' "$@"`], {
      cwd: root,
    });
    const words = stdout.split('\0').slice(0, -1);
    expect(words.slice(-3)).toEqual(['serve', '--data-dir', typo]);
    expect(existsSync(resolve(root, words[1] ?? ''))).toBe(true);
  });

  it('token list reads a store that serve created', async () => {
    const result = await airlock(['token', 'list', '--data-dir', existing]);
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(3);
  });

  it('token refuses an argument too many or a flag of another verb (exit 2), creating nothing', async () => {
    const extra = await airlock([
      'token',
      'create',
      '--kind',
      'member',
      'ana',
      '--data-dir',
      existing,
    ]);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toBe(
      'airlock token create: unexpected argument "ana" (it takes no arguments; see airlock token --help)\n',
    );
    const flag = await airlock(['token', 'list', '--kind', 'member', '--data-dir', existing]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('airlock token list: --kind is not an option of list');
    const listed = await airlock(['token', 'list', '--data-dir', existing]);
    expect(listed.stdout.trim().split('\n')).toHaveLength(3);
  });

  it('serve on an existing store says how to mint a token', async () => {
    const { banner, child } = await startServe(
      ['--data-dir', existing],
      'a new token for a person',
    );
    try {
      expect(banner).toMatch(/Airlock is ready at http:\/\/127\.0\.0\.1:\d+/);
      expect(banner).toContain(`token create --kind member --data-dir ${existing}`);
      // A person who lost the admin token learns how to get one back, not only an approver's.
      expect(banner).toContain('add --role admin for one who also manages the workspace');
      // Started from the checkout (where `pnpm exec airlock` works), the hint uses that one spelling.
      expect(banner).toContain('pnpm exec airlock token create');
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('serve --no-demo on a new store prints the export line the operator commands read', async () => {
    const fresh = join(root, 'no-demo');
    const { banner, child } = await startServe(['--data-dir', fresh, '--no-demo'], 'shown once');
    try {
      const line =
        /export (AIRLOCK_URL=\S+ AIRLOCK_WORKSPACE=\S+ AIRLOCK_TOKEN=\S+ AIRLOCK_EXECUTOR_TOKEN=\S+)\n/.exec(
          banner,
        )?.[1];
      if (!line) throw new Error(`no export line in: ${banner}`);
      const exported = Object.fromEntries(line.split(' ').map((pair) => pair.split('=')));
      const listed = await airlock(['decisions', 'list'], exported);
      expect(listed).toMatchObject({ code: 0, stderr: '' });
    } finally {
      child.kill('SIGTERM');
    }
  });
});

/** Starts `airlock serve` on a free port with these flags; resolves once its banner holds `until`. */
async function startServe(args: string[], until: string) {
  const child = spawn(
    process.execPath,
    [...CLI_NODE_ARGS, 'serve', '--port', '0', '--log-level', 'error', ...args],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  try {
    const banner = await new Promise<string>((resolveBanner, reject) => {
      let text = '';
      child.stderr.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes(until)) resolveBanner(text);
      });
      child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${text}`)));
    });
    return { banner, child };
  } catch (error) {
    child.kill('SIGTERM');
    throw error;
  }
}
