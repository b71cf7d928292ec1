import { alternating, cpu, fmt, measure, ms, type Result, row } from './measure.js';
import { stage } from './progress.js';
import { startServer } from './server-process.js';
import { type Subscribers, subscribersOf } from './subscribers.js';

/** Rounds of the alternation: each measures the kernel with and without the subscriber. */
const ROUNDS = 4;

/**
 * What one subscriber of every event (an open web inbox, or any one workspace
 * feed) costs the kernel at full load, measured on one kernel in alternation:
 * each round measures park-and-approve with no subscriber and with one, the
 * order rotating, so neither side gets the other's minute of the machine.
 * (Its own case above runs in a kernel of its own, a minute after the one
 * with none, and drifts by more than the 10 % this looks for.)
 */
export async function oneSubscriberAlternating(options: {
  seconds: number;
  concurrency: number;
  /** Another build's `cli.js` to measure (default: this package's). */
  cli?: string | undefined;
}): Promise<void> {
  const server = await startServer(null, options.cli ? { cli: options.cli } : {});
  try {
    const window = (subscribers: Subscribers | undefined) =>
      measure({
        targets: [server],
        pids: [server.child.pid],
        shape: 'model',
        subscribers,
        seconds: options.seconds,
        concurrency: options.concurrency,
      });
    stage('warming the kernel up');
    await window(undefined);
    const withOne = async (): Promise<Result> => {
      const subscribers = await subscribersOf(server, { kind: 'all', count: 1 });
      try {
        return await window(subscribers);
      } finally {
        await subscribers?.close();
      }
    };
    const [none, one] = await alternating([() => window(undefined), withOne], ROUNDS);
    const label = `run create (model row parks) + approve, durability full, alternating ${ROUNDS} rounds`;
    row([
      'sqlite',
      label,
      '0',
      fmt(none!.perSecond),
      '—',
      ms(none!.p50),
      ms(none!.p99),
      cpu(none!),
      '—',
    ]);
    row([
      'sqlite',
      label,
      '1 all',
      fmt(one!.perSecond),
      `${(one!.perSecond / none!.perSecond).toFixed(2)} of 0 subscribers; CPU ${(one!.cpuUs[0]! / none!.cpuUs[0]!).toFixed(2)} of it`,
      ms(one!.p50),
      ms(one!.p99),
      cpu(one!),
      `${fmt(one!.deliveredPerSecond ?? 0)}/s`,
    ]);
  } finally {
    await server.cleanup();
  }
}
