import { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Store } from '../store/store.js';
import { runBackup } from './backup-run.js';
import { runRestore } from './restore-run.js';

const root = mkdtempSync(join(tmpdir(), 'airlock-backup-interrupted-'));
const dataDir = join(root, 'data');
const good = join(root, 'good.sqlite');
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** What the command wrote on stderr, which is kept from the test's own output. */
let said: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  said = [];
});
function captureStderr(): void {
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    said.push(String(chunk));
    return true;
  });
}

beforeAll(async () => {
  const store = await Store.open({ dataDir });
  await store.close();
  captureStderr();
  expect(await runBackup({ file: good, dataDir, databaseUrl: undefined, fence: true })).toBe(0);
  vi.restoreAllMocks();
}, 60_000);

// The signal is emitted right after the command starts: by then it holds the signals and has
// begun its copy, and it has not reached the point where it stops for one (no wall clock). It is
// emitted on an emitter of the test's own: on this process it would also reach the test runner's
// own SIGINT and SIGTERM handlers, which end the worker.
describe('a backup or restore stopped by a signal leaves nothing half made', {
  timeout: 60_000,
}, () => {
  it('a backup stopped by SIGINT removes its partial copy and exits 130', async () => {
    const into = join(root, 'backups');
    mkdirSync(into);
    const signals = new EventEmitter();
    captureStderr();
    const running = runBackup(
      { file: join(into, 'b.sqlite'), dataDir, databaseUrl: undefined, fence: true },
      signals,
    );
    signals.emit('SIGINT', 'SIGINT');
    expect(await running).toBe(130);
    expect(readdirSync(into)).toEqual([]);
    expect(said.at(-1)).toBe(
      'airlock backup: interrupted: stopped by SIGINT before the copy was whole; no backup was written, and the partial copy was removed\n',
    );
    // Let go again: a later Ctrl-C has its default action.
    expect(signals.listenerCount('SIGINT')).toBe(0);
  });

  it('a restore stopped by SIGTERM leaves the store that was there in place, exit 143', async () => {
    const before = readFileSync(join(dataDir, 'airlock.sqlite'));
    const entries = readdirSync(dataDir).sort();
    const signals = new EventEmitter();
    captureStderr();
    const running = runRestore(
      { file: good, dataDir, databaseUrl: undefined, fence: true },
      signals,
    );
    signals.emit('SIGTERM', 'SIGTERM');
    expect(await running).toBe(143);
    expect(said.at(-1)).toBe(
      `airlock restore: interrupted: stopped by SIGTERM before the backup was put in place; ${dataDir} is as it was\n`,
    );
    expect(readdirSync(dataDir).sort()).toEqual(entries);
    expect(readFileSync(join(dataDir, 'airlock.sqlite')).equals(before)).toBe(true);
    expect(signals.listenerCount('SIGTERM')).toBe(0);
  });

  it('a restore into a new directory stopped by SIGINT makes no directory', async () => {
    const fresh = join(root, 'fresh', 'data');
    const signals = new EventEmitter();
    captureStderr();
    const running = runRestore(
      { file: good, dataDir: fresh, databaseUrl: undefined, fence: true },
      signals,
    );
    signals.emit('SIGINT', 'SIGINT');
    expect(await running).toBe(130);
    expect(readdirSync(root)).not.toContain('fresh');
  });
});
