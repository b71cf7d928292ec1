import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * WAL frames (4 KiB pages) past which the worker asks the kernel's thread to
 * finish a checkpoint, so that the WAL starts again from its beginning: about
 * 8 MiB, twice SQLite's own automatic checkpoint.
 */
export const WAL_RESTART_FRAMES = 2048;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 1000');
const timer = setInterval(() => {
  try {
    const [done] = db.pragma('wal_checkpoint(PASSIVE)');
    if (done.log >= workerData.restartFrames) parentPort.postMessage({ walFrames: done.log });
  } catch {}
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.postMessage({ closed: true });
});
`;

/** What the worker tells the kernel's thread. */
type WorkerMessage = { closed: true } | { walFrames: number };

/**
 * Copies the WAL back into the database file from a worker thread, so the
 * kernel's thread never stalls on a checkpoint's writes and fsync (PASSIVE:
 * it never blocks the writer).
 *
 * A PASSIVE checkpoint copies the frames committed before it started; SQLite
 * starts the WAL again from its beginning only when a write finds every frame
 * copied. Under writes that never pause, some frame always arrived during the
 * checkpoint, and the WAL grew with everything written (181 MB after 3 s of
 * back-to-back units, checkpointer.test.ts). So once the WAL holds
 * `restartFrames` frames after a checkpoint, the worker tells `onLarge`: the
 * kernel's thread then checkpoints the few frames left between two units of
 * work (see GroupCommit), and its next write starts the WAL again.
 */
export class Checkpointer {
  private readonly worker: Worker;
  /** Called when a checkpoint left the WAL at `restartFrames` frames or more. */
  onLarge: (() => void) | null = null;

  /** Starts checkpointing `file`; `onFailure` runs if the worker cannot (then the caller checkpoints). */
  constructor(
    file: string,
    onFailure: () => void,
    intervalMs = 250,
    restartFrames = WAL_RESTART_FRAMES,
  ) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file, driver, intervalMs, restartFrames },
    });
    this.worker.once('error', onFailure);
    this.worker.on('message', (message: WorkerMessage) => {
      if ('walFrames' in message) this.onLarge?.();
    });
    this.worker.unref();
  }

  /** Stops the worker after closing its connection. */
  async stop(): Promise<void> {
    const closed = new Promise<void>((resolve) =>
      this.worker.on('message', (message: WorkerMessage) => {
        if ('closed' in message) resolve();
      }),
    );
    this.worker.postMessage('close');
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 1000))]);
    await this.worker.terminate();
  }
}
