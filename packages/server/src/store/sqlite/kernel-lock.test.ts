import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DataDirInUseError,
  holdDataDir,
  KERNEL_LOCK_DATABASE,
  KERNEL_LOCK_FILE,
} from './kernel-lock.js';

const root = mkdtempSync(join(tmpdir(), 'airlock-kernel-lock-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

// Each line read is a directory to hold; each line written is `held` or the refusal's code.
// The holds stay open (referenced) until the process ends.
const HOLDER = `
const { holdDataDir } = await import(${JSON.stringify(fileURLToPath(new URL('./kernel-lock.ts', import.meta.url)))});
const { createInterface } = await import('node:readline');
globalThis.holds = [];
console.log('ready');
for await (const dir of createInterface({ input: process.stdin })) {
  try { globalThis.holds.push(holdDataDir(dir)); console.log('held'); }
  catch (error) { console.log(error.code ?? String(error)); }
}`;

/** Another process that holds data directories on request, as a kernel would. */
interface HolderProcess {
  pid: number;
  hold(dir: string): Promise<string>;
  kill(): Promise<void>;
}

async function startHolder(): Promise<HolderProcess> {
  const child = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', '--input-type=module', '-e', HOLDER],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  children.push(child);
  const waiting: ((line: string) => void)[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => waiting.shift()?.(line));
  const next = () => new Promise<string>((answer) => waiting.push(answer));
  expect(await next()).toBe('ready');
  return {
    pid: child.pid!,
    hold(dir) {
      const answer = next();
      child.stdin!.write(`${dir}\n`);
      return answer;
    },
    kill: () =>
      new Promise((done) => {
        child.once('exit', () => done());
        child.kill('SIGKILL');
      }),
  };
}

const refusalOf = (dir: string): unknown => {
  try {
    holdDataDir(dir)();
    return null;
  } catch (error) {
    return error;
  }
};

const writeLock = (dir: string, holder: object) =>
  writeFileSync(join(dir, KERNEL_LOCK_FILE), `${JSON.stringify(holder)}\n`);

describe('holdDataDir', { timeout: 60_000 }, () => {
  it('holds a directory exclusively within one process until let go', () => {
    const dir = join(root, 'one');
    const release = holdDataDir(dir);
    expect(JSON.parse(readFileSync(join(dir, KERNEL_LOCK_FILE), 'utf8')).pid).toBe(process.pid);
    const refused = refusalOf(dir);
    expect(refused).toBeInstanceOf(DataDirInUseError);
    expect((refused as DataDirInUseError).code).toBe('data_dir_in_use');
    expect((refused as Error).message).toContain(`pid ${process.pid}`);
    // A refused attempt leaves the hold it met in place.
    expect(refusalOf(dir)).toBeInstanceOf(DataDirInUseError);
    release();
    expect(existsSync(join(dir, KERNEL_LOCK_FILE))).toBe(false);
    const again = holdDataDir(dir);
    // A kernel.lock rewritten by someone else after ours is not ours to remove.
    const foreign = JSON.stringify({ pid: 1, host: 'elsewhere', started_at: '' });
    writeFileSync(join(dir, KERNEL_LOCK_FILE), foreign);
    again();
    expect(readFileSync(join(dir, KERNEL_LOCK_FILE), 'utf8')).toBe(foreign);
  });

  it('refuses while a live process holds it, naming it, and takes it once that process is killed', async () => {
    const dir = join(root, 'killed');
    const holder = await startHolder();
    expect(await holder.hold(dir)).toBe('held');
    const refused = refusalOf(dir);
    expect(refused).toBeInstanceOf(DataDirInUseError);
    expect((refused as Error).message).toContain(`pid ${holder.pid},`);
    expect((refused as DataDirInUseError).holder?.pid).toBe(holder.pid);
    await holder.kill();
    const release = holdDataDir(dir);
    expect(JSON.parse(readFileSync(join(dir, KERNEL_LOCK_FILE), 'utf8')).pid).toBe(process.pid);
    release();
  });

  // What a kill -9 or an OOM kill leaves, read back by a start whose pid or host names the dead holder:
  // a container's PID 1 restarted in place, a pid reused by an unrelated process, a re-created container.
  const leftBehind = [
    ['its pid is ours', () => ({ pid: process.pid, host: hostname() })],
    ['its pid is 1', () => ({ pid: 1, host: hostname() })],
    ['it names another host', () => ({ pid: 12345678, host: 'old-container-id' })],
    ['it is not JSON', () => null],
  ] as const;
  for (const [name, holder] of leftBehind) {
    it(`takes over a lock left by a killed process when ${name}`, async () => {
      const dir = join(root, `left-${name.replaceAll(' ', '-')}`);
      const killed = await startHolder();
      expect(await killed.hold(dir)).toBe('held');
      await killed.kill();
      const left = holder();
      if (left) writeLock(dir, { ...left, started_at: '2020-01-01T00:00:00.000Z' });
      else writeFileSync(join(dir, KERNEL_LOCK_FILE), 'not json');
      const release = holdDataDir(dir);
      expect(JSON.parse(readFileSync(join(dir, KERNEL_LOCK_FILE), 'utf8')).pid).toBe(process.pid);
      release();
    });
  }

  // The race behind a CI failure where all three starts below were refused: the start about to
  // win holds RESERVED and needs every SHARED lock gone to finish, while a refused start waits
  // out its busy timeout. Here the test plays the winner caught in that window.
  it('lets a start about to win finish while another start waits for the directory', async () => {
    const dir = join(root, 'settling');
    mkdirSync(dir);
    const winner = new SqliteDatabase(join(dir, KERNEL_LOCK_DATABASE), { timeout: 200 });
    winner.exec('BEGIN IMMEDIATE');
    winner.exec('CREATE TABLE winning (at INTEGER)');
    const waiter = await startHolder();
    const answer = waiter.hold(dir);
    // Well inside the waiter's 1 s of retries (a slow machine only makes this check weaker).
    await new Promise((settle) => setTimeout(settle, 300));
    // A waiter that kept its SHARED lock while retrying would make this COMMIT time out (SQLITE_BUSY).
    expect(() => winner.exec('COMMIT')).not.toThrow();
    winner.close();
    expect(await answer).toBe('held');
  });

  it('lets exactly one of three processes starting at once hold a directory', async () => {
    const holders = await Promise.all([startHolder(), startHolder(), startHolder()]);
    for (let round = 0; round < 6; round += 1) {
      const dir = join(root, `race-${round}`);
      mkdirSync(dir);
      // A stale lock to take over (a process that is gone), as after a crash.
      const gone = spawnSync(process.execPath, ['-e', '']).pid;
      writeLock(dir, { pid: gone, host: hostname(), started_at: '' });
      const answers = await Promise.all(holders.map((holder) => holder.hold(dir)));
      expect(
        answers.filter((answer) => answer === 'held'),
        `round ${round}: ${answers}`,
      ).toHaveLength(1);
      expect(answers.filter((answer) => answer === 'data_dir_in_use')).toHaveLength(2);
    }
  });
});
