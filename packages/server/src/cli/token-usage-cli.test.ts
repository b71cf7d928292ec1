import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../store/store.js';
import { runLocalInProcess } from '../testing/cli-in-process.js';
import { runLocalCli } from '../testing/operator-cli.js';
import { ensureLocalWorkspace } from './local-workspace.js';

const root = mkdtempSync(join(tmpdir(), 'airlock-token-usage-'));
const dataDir = join(root, 'store');
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** How many agent applications the store holds, removed or not. */
function applicationCount(): number {
  const db = new SqliteDatabase(join(dataDir, 'airlock.sqlite'), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM agent_applications').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

// The refusals and the list run in-process, as cli.ts runs them (testing/cli-in-process.ts); the
// rest start the CLI in a child process: slow on a loaded machine, so a wide bound.
describe('airlock token checks its command line before it opens the store', {
  timeout: 120_000,
}, () => {
  beforeAll(async () => {
    const store = await Store.open({ dataDir });
    await ensureLocalWorkspace(store);
    await store.close();
    // Every application removed (`airlock apps remove`): a token made now needs a new one.
    const db = new SqliteDatabase(join(dataDir, 'airlock.sqlite'));
    db.prepare('UPDATE agent_applications SET removed_at = 1').run();
    db.close();
  });

  it.each([
    [['token', 'create', '--kind', 'root'], '--kind must be agent, executor or member'],
    [['token', 'create'], '--kind must be agent, executor or member'],
    [['token', 'create', '--kind', 'agent', '--role', 'admin'], '--role must be admin or approver'],
    [['token', 'create', '--kind', 'member', '--label', ''], '--label must be 1 to 200 characters'],
    [
      ['token', 'create', '--kind', 'member', '--label', 'x'.repeat(201)],
      '--label must be 1 to 200 characters',
    ],
    [['token', 'revoke'], 'airlock token revoke: name a credential id or a token'],
    [['token', 'bogus'], 'airlock token: unknown verb bogus'],
    [['token', 'alk_member_0123456789abcdef'], 'airlock token: unknown verb (not repeated here'],
    [
      ['token', 'list', '--database-url', 'notaurl'],
      'airlock token: --database-url wants a postgres:// or postgresql:// URL, not "notaurl"',
    ],
  ])('refuses %j with exit 2, making nothing', async (args, message) => {
    const before = applicationCount();
    const refused = await runLocalInProcess([...args, '--data-dir', dataDir]);
    expect(refused.stderr).toContain(message);
    expect(refused.code).toBe(2);
    expect(applicationCount()).toBe(before);
  });

  it('says what is wrong with the command line before it looks for a store', async () => {
    const refused = await runLocalCli([
      'token',
      'create',
      '--kind',
      'root',
      '--data-dir',
      join(root, 'nowhere'),
    ]);
    expect(refused.stderr).toContain('--kind must be agent, executor or member');
    expect(refused.code).toBe(2);
  });

  it('lists without making an application: list only reads', async () => {
    const before = applicationCount();
    const listed = await runLocalInProcess(['token', 'list', '--data-dir', dataDir]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('\tmember\t');
    expect(applicationCount()).toBe(before);
  });

  it('makes a token, and an application for it, when every one was removed', async () => {
    const before = applicationCount();
    const made = await runLocalCli(['token', 'create', '--kind', 'member', '--data-dir', dataDir]);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toMatch(/^alk_member_/);
    expect(applicationCount()).toBe(before + 1);
  });
});
