import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

// A refused hold waits out its busy timeout (a second) on the thread that asked: the cases spend
// most of their time in such waits and in starting holder processes, so the cases that do not
// time the main thread run side by side, on holder processes started once for the file.
describe('holdDataDir', { timeout: 60_000 }, () => {
  /** Two sets of three holders, each set racing on directories of its own. */
  let triples: HolderProcess[][];
  beforeAll(async () => {
    const holders = await Promise.all(Array.from({ length: 6 }, () => startHolder()));
    triples = [holders.slice(0, 3), holders.slice(3)];
  }, 60_000);

  // The race behind a CI failure where all three starts below were refused: the start about to
  // win holds RESERVED and needs every SHARED lock gone to finish, while a refused start waits
  // out its busy timeout. Here the test plays the winner caught in that window. Alone: its timer
  // must fire on time, which a refusal waiting on this thread in another case would delay.
  it('lets a start about to win finish while another start waits for the directory', async () => {
    const dir = join(root, 'settling');
    mkdirSync(dir);
    const winner = new SqliteDatabase(join(dir, KERNEL_LOCK_DATABASE), { timeout: 200 });
    winner.exec('BEGIN IMMEDIATE');
    winner.exec('CREATE TABLE winning (at INTEGER)');
    const answer = triples[0]![0]!.hold(dir);
    // Well inside the waiter's 1 s of retries (a slow machine only makes this check weaker).
    await new Promise((settle) => setTimeout(settle, 300));
    // A waiter that kept its SHARED lock while retrying would make this COMMIT time out (SQLITE_BUSY).
    expect(() => winner.exec('COMMIT')).not.toThrow();
    winner.close();
    expect(await answer).toBe('held');
  });

  describe.concurrent('side by side', () => {
    // First: the longest (six rounds, each a busy timeout), started before the others queue; the
    // rounds go three by three, on two sets of holders at once.
    it('lets exactly one of three processes starting at once hold a directory', async () => {
      const race = async (holders: HolderProcess[], rounds: number[]) => {
        for (const round of rounds) {
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
      };
      await Promise.all([race(triples[0]!, [0, 2, 4]), race(triples[1]!, [1, 3, 5])]);
    });

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
    const leftDir = (name: string) => join(root, `left-${name.replaceAll(' ', '-')}`);
    /** One holder process holds every left-behind case's directory, then is killed. */
    let killedOnce: Promise<void> | undefined;
    const killedHolder = () => {
      killedOnce ??= (async () => {
        const killed = await startHolder();
        for (const [name] of leftBehind) expect(await killed.hold(leftDir(name))).toBe('held');
        await killed.kill();
      })();
      return killedOnce;
    };
    for (const [name, holder] of leftBehind) {
      it(`takes over a lock left by a killed process when ${name}`, async () => {
        const dir = leftDir(name);
        await killedHolder();
        const left = holder();
        if (left) writeLock(dir, { ...left, started_at: '2020-01-01T00:00:00.000Z' });
        else writeFileSync(join(dir, KERNEL_LOCK_FILE), 'not json');
        const release = holdDataDir(dir);
        expect(JSON.parse(readFileSync(join(dir, KERNEL_LOCK_FILE), 'utf8')).pid).toBe(process.pid);
        release();
      });
    }
  });
});
