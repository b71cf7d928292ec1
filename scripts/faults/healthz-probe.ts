import { Worker } from 'node:worker_threads';

/** What a probe saw: every `/healthz` answer's time, in milliseconds. */
export interface ProbeReport {
  count: number;
  maxMs: number;
  p99Ms: number;
  failures: number;
}

/** A running probe; `stop()` ends it and answers what it saw. */
export interface HealthzProbe {
  stop(): Promise<ProbeReport>;
}

// The probe runs on a worker thread: the driver's own work (thousands of requests, JSON)
// must not delay the probe's clock, only the kernel may.
const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const times = [];
let failures = 0;
let running = true;
parentPort.on('message', () => { running = false; });
(async () => {
  // One untimed request first: loading fetch in a fresh thread and opening the
  // connection take tens of milliseconds of the client's own, not the kernel's.
  try { await (await fetch(workerData.url)).text(); } catch { failures++; }
  while (running) {
    const started = performance.now();
    try {
      const answer = await fetch(workerData.url, { signal: AbortSignal.timeout(10000) });
      await answer.text();
      if (answer.status !== 200) failures++;
    } catch { failures++; }
    times.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, workerData.gapMs));
  }
  times.sort((a, b) => a - b);
  parentPort.postMessage({
    count: times.length,
    maxMs: times.at(-1) ?? 0,
    p99Ms: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))] ?? 0,
    failures,
  });
})();
`;

/** Sends `GET /healthz` to a kernel one after another, `gapMs` apart, until stopped. */
export function probeHealthz(kernelUrl: string, gapMs = 10): HealthzProbe {
  const worker = new Worker(SOURCE, {
    eval: true,
    workerData: { url: `${kernelUrl}/healthz`, gapMs },
  });
  const report = new Promise<ProbeReport>((resolve, reject) => {
    worker.once('message', (message: ProbeReport) => {
      void worker.terminate();
      resolve(message);
    });
    worker.once('error', reject);
  });
  return {
    stop() {
      worker.postMessage('stop');
      return report;
    },
  };
}
