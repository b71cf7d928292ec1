import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runLocalCli } from '../testing/operator-cli.js';

const root = mkdtempSync(join(tmpdir(), 'airlock-restore-refused-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A file of 4 KiB that is no SQLite database: restore checks it only after taking the lock. */
const foreign = join(root, 'foreign.sqlite');
writeFileSync(foreign, Buffer.alloc(4096, 1));

describe('a refused restore into a data directory that exists changes nothing in it', {
  timeout: 60_000,
}, () => {
  it('leaves an empty directory empty', async () => {
    const dataDir = join(root, 'empty');
    mkdirSync(dataDir);
    const refused = await runLocalCli(['restore', foreign, '--data-dir', dataDir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('airlock restore: not_an_airlock_store: ');
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('leaves a directory holding other files as it was, without the lock it took', async () => {
    const dataDir = join(root, 'with files');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'notes.txt'), 'mine\n');
    const refused = await runLocalCli(['restore', foreign, '--data-dir', dataDir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('airlock restore: not_an_airlock_store: ');
    expect(readdirSync(dataDir)).toEqual(['notes.txt']);
  });

  it('keeps a lock file that was there before: a kernel served the directory', async () => {
    const dataDir = join(root, 'served');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'kernel.lock.sqlite'), '');
    const refused = await runLocalCli(['restore', foreign, '--data-dir', dataDir]);
    expect(refused.code).toBe(1);
    expect(readdirSync(dataDir)).toEqual(['kernel.lock.sqlite']);
  });
});
