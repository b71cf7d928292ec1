/*
 * A bench's kernel, in a process of its own (forked by kernel-process.ts for bench-inbox.ts and
 * `KERNEL=process` bench-frameworks.ts), as in production: the browser's driver (Playwright, which
 * handles every DevTools event of the page) or the application's framework and the bench's own
 * client stay out of the kernel's process. It serves the built inbox in front of the kernel
 * (unless BENCH_KERNEL_INBOX=0), runs at BENCH_KERNEL_DURABILITY (default full), tells its parent
 * where it listens, and answers, over the IPC channel:
 * - `cpu`: its CPU time so far (user + system, ms);
 * - `memory`: after a full garbage collection, its resident set and V8 heap in use (bytes);
 * - `profile-start` / `profile-stop FILE`: a V8 CPU profile of the kernel between the two;
 * - `close`: closes the kernel and exits.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { mountInbox } from '../src/support/browser.js';
import { startTestKernel } from '../src/support/kernel.js';

/** A request from the bench. */
type Request = {
  id: number;
  op: 'cpu' | 'memory' | 'profile-start' | 'profile-stop' | 'close';
  file?: string;
  /** A profile's sampling interval in microseconds (V8's default: 1000). */
  intervalUs?: number;
};

const kernel = await startTestKernel({
  durability: process.env.BENCH_KERNEL_DURABILITY === 'relaxed' ? 'relaxed' : 'full',
  // The kernel's own clock sweep (every 250 ms), as `airlock serve` runs it; not the tests' 50 ms,
  // whose extra sweeps would land in a bench's calls.
  sweepIntervalMs: undefined,
});
if (process.env.BENCH_KERNEL_INBOX !== '0') mountInbox(kernel);
const inspector = new Session();
inspector.connect();

const answer = (id: number, value: unknown = null) => process.send?.({ id, value });

process.on('message', (message: Request) => {
  void (async () => {
    switch (message.op) {
      case 'cpu': {
        const used = process.cpuUsage();
        return answer(message.id, (used.user + used.system) / 1000);
      }
      case 'memory': {
        await inspector.post('HeapProfiler.collectGarbage');
        const { rss, heapUsed } = process.memoryUsage();
        return answer(message.id, { rss, heapUsed });
      }
      case 'profile-start':
        await inspector.post('Profiler.enable');
        if (message.intervalUs) {
          await inspector.post('Profiler.setSamplingInterval', { interval: message.intervalUs });
        }
        await inspector.post('Profiler.start');
        return answer(message.id);
      case 'profile-stop': {
        const { profile } = await inspector.post('Profiler.stop');
        if (message.file) writeFileSync(message.file, JSON.stringify(profile));
        return answer(message.id);
      }
      case 'close':
        inspector.disconnect();
        await kernel.close();
        answer(message.id);
        process.disconnect();
        return;
    }
  })();
});

process.send?.({ ready: { url: kernel.url, workspace: kernel.workspace } });
