import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type AnalysisJob, type AnalysisOutcome, analyseText } from './analyse-text.js';

/**
 * Longest one analysis may run before its thread is stopped. The work
 * budget keeps a crafted file near a second and a half of CPU; this only
 * catches what the budget cannot see, with room for a machine under load.
 */
export const ANALYSIS_DEADLINE_MS = 30_000;

/** Where the built worker is; absent when the server runs from TypeScript sources (tests, tsx). */
const WORKER_SCRIPT = new URL('./lint-worker.js', import.meta.url);

interface Pending {
  readonly job: AnalysisJob;
  /** False once the document has a newer version or was closed: the analysis is not wanted. */
  readonly isCurrent: () => boolean;
  readonly resolve: (findings: AnalysisOutcome | undefined) => void;
  readonly reject: (error: Error) => void;
}

/**
 * Runs the language server's analyses one at a time on a worker thread, so
 * that hover, completion and the protocol keep answering while a slow file
 * is analysed. An analysis no longer wanted is skipped before it starts, or
 * stopped (its thread terminated, a fresh one started for the next) when a
 * newer version arrives; either way it resolves undefined.
 */
export class AnalysisThread {
  private worker: Worker | undefined;
  private running: Pending | undefined;
  private deadline: NodeJS.Timeout | undefined;
  private readonly queue: Pending[] = [];
  private readonly script: URL | undefined;

  /** `script` is the worker's module (the built `lint-worker.js` unless a test names another). */
  constructor(
    script: URL | undefined = WORKER_SCRIPT,
    private readonly deadlineMs = ANALYSIS_DEADLINE_MS,
  ) {
    this.script = script && existsSync(fileURLToPath(script)) ? script : undefined;
  }

  /** The job's outcome, or undefined when it stopped being current first. Rejects past the deadline. */
  analyse(job: AnalysisJob, isCurrent: () => boolean): Promise<AnalysisOutcome | undefined> {
    // Without a built worker (running from sources) the analysis runs here, as before.
    if (!this.script) return Promise.resolve(isCurrent() ? analyseText(job) : undefined);
    return new Promise((resolve, reject) => {
      this.queue.push({ job, isCurrent, resolve, reject });
      this.startNext();
    });
  }

  /** Stops the running analysis if it is no longer current; queued ones are skipped when reached. */
  dropStale(): void {
    const running = this.running;
    if (running && !running.isCurrent()) {
      this.stopWorker();
      this.settle(running, () => running.resolve(undefined));
    }
  }

  /** Stops the thread; pending analyses resolve undefined. */
  close(): void {
    this.stopWorker();
    for (const pending of this.queue.splice(0)) pending.resolve(undefined);
    const running = this.running;
    if (running) this.settle(running, () => running.resolve(undefined));
  }

  private startNext(): void {
    if (this.running) return;
    let next = this.queue.shift();
    while (next && !next.isCurrent()) {
      next.resolve(undefined);
      next = this.queue.shift();
    }
    if (!next) return;
    const pending = next;
    this.running = pending;
    this.worker ??= this.startWorker();
    this.deadline = setTimeout(() => {
      this.stopWorker();
      this.settle(pending, () =>
        pending.reject(new Error(`analysis stopped after ${this.deadlineMs / 1000} s (deadline)`)),
      );
    }, this.deadlineMs);
    this.deadline.unref();
    this.worker.postMessage(pending.job);
  }

  private startWorker(): Worker {
    const worker = new Worker(this.script!);
    // The thread never keeps the server alive: the protocol decides when it ends.
    worker.unref();
    const mine = () => this.worker === worker && this.running !== undefined;
    worker.on('message', (outcome: AnalysisOutcome) => {
      const running = this.running;
      if (mine() && running) this.settle(running, () => running.resolve(outcome));
    });
    const failed = (reason: string) => {
      const running = this.running;
      if (!mine() || !running) return;
      this.worker = undefined;
      this.settle(running, () => running.reject(new Error(`analysis thread ${reason}`)));
    };
    worker.on('error', (error) => failed(`failed: ${error.message}`));
    worker.on('exit', (code) => failed(`exited (${code})`));
    return worker;
  }

  private settle(pending: Pending, answer: () => void): void {
    if (this.running !== pending) return;
    clearTimeout(this.deadline);
    this.running = undefined;
    answer();
    this.startNext();
  }

  private stopWorker(): void {
    const worker = this.worker;
    this.worker = undefined;
    worker?.terminate().catch(() => undefined);
  }
}
