/**
 * How long `airlock serve` takes from spawn to listening on an empty SQLite
 * data directory, for this build and optionally another one, taking turns
 * so both see the same machine. Prints each build's median and every run.
 *
 *   pnpm --filter @airlock/server bench:serve-start [-- --base other/dist/cli.js] [--rounds 8]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { packageDir } from './server-process.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    base: { type: 'string' },
    rounds: { type: 'string', default: '8' },
  },
});

/** Milliseconds from spawning `cli serve` to its "listening" log line. */
async function startOnce(cli: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-serve-start-'));
  const started = performance.now();
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data-dir', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const hear = (chunk: Buffer) => {
        output += chunk;
        if (output.includes('listening')) resolve();
      };
      child.stdout.on('data', hear);
      child.stderr.on('data', hear);
      child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${output}`)));
    });
    return performance.now() - started;
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

const builds: [string, string][] = [['current', join(packageDir, 'dist', 'cli.js')]];
if (values.base) builds.unshift(['base', values.base]);
const times = new Map<string, number[]>(builds.map(([name]) => [name, []]));
for (let round = 0; round < Number(values.rounds); round++) {
  const order = round % 2 === 0 ? builds : [...builds].reverse();
  for (const [name, cli] of order) times.get(name)!.push(await startOnce(cli));
}
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
console.log('airlock serve, spawn to listening, empty SQLite data directory');
for (const [name, list] of times) {
  console.log(
    `  ${name}: median ${median(list).toFixed(0)} ms (${list.map((ms) => ms.toFixed(0)).join(', ')})`,
  );
}
