import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 1000');
const timer = setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.postMessage('closed');
});
`;

/**
 * Copies the WAL back into the database file from a worker thread, so the
 * kernel's thread never stalls on a checkpoint's writes and fsync (PASSIVE:
 * it never blocks the writer).
 */
export class Checkpointer {
  private readonly worker: Worker;

  /** Starts checkpointing `file`; `onFailure` runs if the worker cannot (then the caller checkpoints). */
  constructor(file: string, onFailure: () => void, intervalMs = 250) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file, driver, intervalMs },
    });
    this.worker.once('error', onFailure);
    this.worker.unref();
  }

  /** Stops the worker after closing its connection. */
  async stop(): Promise<void> {
    const closed = new Promise((resolve) => this.worker.once('message', resolve));
    this.worker.postMessage('close');
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 1000))]);
    await this.worker.terminate();
  }
}
