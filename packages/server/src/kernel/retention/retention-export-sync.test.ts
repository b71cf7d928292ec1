import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { straceSkipReason } from '../../testing/syscall-trace.js';

const noStrace = straceSkipReason();
if (noStrace)
  console.warn(`[airlock tests] skipping the export folder's directory sync: ${noStrace}`);

const root = mkdtempSync(join(tmpdir(), 'airlock-export-sync-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Appends one step's lines to a new export folder in a child process under strace; answers its trace. */
function tracedAppend(directory: string): string[] {
  const trace = join(root, 'append.strace');
  const script = `
    const { ExportFolder } = await import(${JSON.stringify(pathToFileURL(join(import.meta.dirname, 'retention-export.ts')).href)});
    await new ExportFolder(${JSON.stringify(directory)}, 'ws_1').append(
      { runs: [{ run: { id: 'run_a' } }] },
      { now: Date.parse('2026-12-05T10:00:00Z'), committed: { day: '2026-12-05', sizes: {} } },
    );`;
  execFileSync('strace', [
    '-f',
    '-y',
    '-e',
    'trace=openat,fsync,fdatasync',
    '-o',
    trace,
    process.execPath,
    '--conditions=source',
    '--import',
    pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href,
    '--input-type=module',
    '-e',
    script,
  ]);
  return readFileSync(trace, 'utf8').split('\n');
}

describe('an export file a pruning step creates', () => {
  it.skipIf(noStrace !== null)(
    'is named on disk before the step deletes: its folder, and the folder above, are synced after it is made',
    () => {
      const directory = join(root, 'exports');
      const folder = join(directory, 'ws_1');
      const lines = tracedAppend(directory);
      const made = lines.findIndex((line) => line.includes(`${folder}/runs-2026-12-05.jsonl>`));
      expect(made, 'the export file is opened').toBeGreaterThanOrEqual(0);
      const synced = (dir: string) =>
        lines
          .slice(made)
          .some((line) => /\bf(data)?sync\(\d+</.test(line) && line.includes(`<${dir}>) = 0`));
      expect(synced(folder), `${folder} synced`).toBe(true);
      expect(synced(directory), `${directory} synced`).toBe(true);
    },
  );
});
