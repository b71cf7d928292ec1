/**
 * How long `airlock serve` takes from spawn to ready (listening, its local
 * workspace made and its tokens printed) on an empty SQLite data directory, for this build and optionally another one, taking turns
 * so both see the same machine. Prints each build's median and every run.
 *
 *   pnpm --filter @airlock/server bench:serve-start [-- --base other/dist/cli.js] [--rounds 8]
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { packageDir, startServer } from './server-process.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    base: { type: 'string' },
    rounds: { type: 'string', default: '8' },
  },
});

/** Milliseconds from spawning `cli serve` to its banner (the kernel listens, its workspace made). */
async function startOnce(cli: string): Promise<number> {
  const started = performance.now();
  const server = await startServer(null, { cli });
  const ms = performance.now() - started;
  await server.cleanup();
  return ms;
}

const builds: [string, string][] = [['current', join(packageDir, 'dist', 'cli.js')]];
if (values.base) builds.unshift(['base', values.base]);
const times = new Map<string, number[]>(builds.map(([name]) => [name, []]));
for (let round = 0; round < Number(values.rounds); round++) {
  const order = round % 2 === 0 ? builds : [...builds].reverse();
  for (const [name, cli] of order) times.get(name)!.push(await startOnce(cli));
}
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
console.log('airlock serve, spawn to ready (tokens printed), empty SQLite data directory');
for (const [name, list] of times) {
  console.log(
    `  ${name}: median ${median(list).toFixed(0)} ms (${list.map((ms) => ms.toFixed(0)).join(', ')})`,
  );
}
