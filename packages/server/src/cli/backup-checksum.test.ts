import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_FILE_NAME } from '../store/sqlite/sqlite-backend.js';
import { Store } from '../store/store.js';
import { runLocalInProcess } from '../testing/cli-in-process.js';

/** A backup's SHA-256, written beside it by airlock backup and checked by airlock restore first. */

const root = mkdtempSync(join(tmpdir(), 'airlock-backup-checksum-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The name of the store's workspace: a row value SQLite's integrity check does not see. */
const NAME = 'ops-checksum-workspace-name';

const source = join(root, 'source');
const good = join(root, 'good.sqlite');

beforeAll(async () => {
  const store = await Store.open({ dataDir: source });
  await store.db
    .insertInto('workspaces')
    .values({ id: 'ws_checksum', name: NAME, created_at: 1 })
    .execute();
  await store.close();
  const backedUp = await runLocalInProcess(['backup', good, '--data-dir', source]);
  expect(backedUp.code, backedUp.stderr).toBe(0);
}, 60_000);

/** A copy of the good backup (and its checksum file, when `withChecksum`), changed by `change`. */
function copyOfGood(name: string, change: (bytes: Buffer) => Buffer, withChecksum = true): string {
  const file = join(root, name);
  writeFileSync(file, change(readFileSync(good)));
  if (withChecksum) writeFileSync(`${file}.sha256`, readFileSync(`${good}.sha256`));
  return file;
}

/** One letter of the workspace's name changed, as a bad sector or a stray write may change it. */
function flipOneByte(bytes: Buffer): Buffer {
  const at = bytes.indexOf(NAME);
  expect(at).toBeGreaterThan(0);
  const changed = Buffer.from(bytes);
  changed[at] = changed[at]! ^ 0x01;
  return changed;
}

/** What a refused restore must leave: the data directory's files, unchanged. */
async function storeDirectory(name: string): Promise<{ dataDir: string; entries: string[] }> {
  const dataDir = join(root, name);
  const store = await Store.open({ dataDir });
  await store.close();
  return { dataDir, entries: readdirSync(dataDir).sort() };
}

describe('airlock backup writes a checksum beside the backup', { timeout: 60_000 }, () => {
  it('as sha256sum writes it, so sha256sum -c checks the file too', () => {
    const line = readFileSync(`${good}.sha256`, 'utf8');
    expect(line).toMatch(new RegExp(`^[0-9a-f]{64}  ${basename(good)}\\n$`));
    const checked = spawnSync('sha256sum', ['-c', basename(`${good}.sha256`)], {
      cwd: root,
      encoding: 'utf8',
    });
    if (checked.error) return; // No sha256sum on this machine: the format was checked above.
    expect(checked.status, checked.stderr).toBe(0);
  });
});

describe('the checksum file of a backup', { timeout: 60_000 }, () => {
  it('is written as a new file, never through a link planted where its draft goes', async () => {
    const dir = join(root, 'planted');
    mkdirSync(dir);
    const victim = join(root, 'victim.txt');
    writeFileSync(victim, 'mine\n');
    // In-process: the draft's name holds this process's pid.
    symlinkSync(victim, join(dir, `.x.sqlite.sha256.${process.pid}.partial`));
    const backedUp = await runLocalInProcess([
      'backup',
      join(dir, 'x.sqlite'),
      '--data-dir',
      source,
    ]);
    expect(backedUp.code, backedUp.stderr).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('mine\n');
    expect(readFileSync(join(dir, 'x.sqlite.sha256'), 'utf8')).toMatch(
      /^[0-9a-f]{64} {2}x\.sqlite\n$/,
    );
  });
});

describe('airlock restore checks the checksum before anything else', { timeout: 60_000 }, () => {
  it('refuses a backup one byte of which changed, and changes nothing', async () => {
    const changed = copyOfGood('one-byte.sqlite', flipOneByte);
    const { dataDir, entries } = await storeDirectory('one-byte-target');
    const before = readFileSync(join(dataDir, SQLITE_FILE_NAME));
    const refused = await runLocalInProcess(['restore', changed, '--data-dir', dataDir]);
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toContain(`airlock restore: backup_checksum_mismatch: ${changed}`);
    expect(readdirSync(dataDir).sort()).toEqual(entries);
    expect(readFileSync(join(dataDir, SQLITE_FILE_NAME)).equals(before)).toBe(true);
  });

  it('refuses a backup cut short, and makes no data directory', async () => {
    const cut = copyOfGood('cut.sqlite', (bytes) => bytes.subarray(0, bytes.length - 4096));
    const dataDir = join(root, 'cut-target');
    const refused = await runLocalInProcess(['restore', cut, '--data-dir', dataDir]);
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toContain('airlock restore: backup_checksum_mismatch: ');
    expect(existsSync(dataDir)).toBe(false);
  });

  it('refuses a checksum file that holds no SHA-256', async () => {
    const file = copyOfGood('garbled.sqlite', (bytes) => bytes);
    writeFileSync(`${file}.sha256`, 'not a digest\n');
    const refused = await runLocalInProcess([
      'restore',
      file,
      '--data-dir',
      join(root, 'garbled-target'),
    ]);
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toContain(`airlock restore: backup_checksum_mismatch: ${file}.sha256`);
  });

  it('restores a backup whose checksum matches', async () => {
    const { dataDir } = await storeDirectory('good-target');
    const restored = await runLocalInProcess(['restore', good, '--data-dir', dataDir]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stderr).toContain(`checksum matches ${good}.sha256`);
    expect(restored.stderr).not.toContain('warning');
  });

  it('finds the checksum beside the file a link names', async () => {
    const changed = copyOfGood('linked-one-byte.sqlite', flipOneByte);
    const link = join(root, 'latest.sqlite');
    symlinkSync(changed, link);
    const refused = await runLocalInProcess([
      'restore',
      link,
      '--data-dir',
      join(root, 'linked-target'),
    ]);
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toContain(`airlock restore: backup_checksum_mismatch: ${link}`);
    expect(refused.stderr).toContain(`${changed}.sha256 says`);
  });

  it('restores an older backup without a checksum file, with a warning', async () => {
    const older = copyOfGood('older.sqlite', (bytes) => bytes, false);
    const dataDir = join(root, 'older-target');
    const restored = await runLocalInProcess(['restore', older, '--data-dir', dataDir]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stderr).toContain(
      `airlock restore: warning: no checksum file ${older}.sha256 beside the backup`,
    );
    expect(restored.stderr).toContain('restored 1 workspace(s)');
  });
});
