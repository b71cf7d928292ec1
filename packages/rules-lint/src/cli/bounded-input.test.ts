import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildDist } from '../testing/build-dist.js';

let cli = '';

beforeAll(() => {
  cli = buildDist();
});

interface Finished {
  code: number | null;
  stderr: string;
}

/** Runs the CLI; with `feed`, writes that much to stdin every 10 ms and never ends it. */
function run(args: string[], feed?: Buffer): Promise<Finished> {
  const child = spawn(process.execPath, [cli, ...args], { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdin.on('error', () => {});
  const timer = feed ? setInterval(() => child.stdin.write(feed), 10) : undefined;
  const deadline = setTimeout(() => child.kill('SIGKILL'), 15_000);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearInterval(timer);
      clearTimeout(deadline);
      resolve({ code, stderr });
    }),
  );
}

describe('the 4 MiB input limit applies while reading', () => {
  it('refuses a standard input that never ends once it passes the limit', async () => {
    const result = await run(['check', '-'], Buffer.alloc(1024 * 1024, 0x20));
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'rules-lint: stdin.json: over the 4.0 MiB limit for a rule file (reading stopped there)\n',
    );
  });

  it.skipIf(!existsSync('/proc/self/pagemap'))(
    'refuses a file whose stat size is 0 but which reads on without end',
    async () => {
      const result = await run(['check', '/proc/self/pagemap']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('over the 4.0 MiB limit for a rule file');
    },
  );
});
