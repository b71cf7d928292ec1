import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { straceSkipReason } from '../../testing/syscall-trace.js';
import { EXPORT_LOCATION_FILE, exportLocation } from './retention-export.js';

const noStrace = straceSkipReason();
if (noStrace) console.warn(`[airlock tests] skipping the export location's sync: ${noStrace}`);

const root = mkdtempSync(join(tmpdir(), 'airlock-export-location-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Names an export directory for the first time in a child process under strace; answers its trace. */
function tracedFirstUse(directory: string): string[] {
  const trace = join(root, 'location.strace');
  const script = `
    const { exportLocation } = await import(${JSON.stringify(pathToFileURL(join(import.meta.dirname, 'retention-export.ts')).href)});
    await exportLocation(${JSON.stringify(directory)});`;
  execFileSync('strace', [
    '-f',
    '-y',
    '-e',
    'trace=openat,write,fsync,fdatasync',
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

/**
 * The store records how long each export file was when its rows' delete committed, keyed by the
 * id in the directory's location file. A location file lost or emptied by a power cut gives the
 * directory a new id: the record is not found, and lines whose delete never committed are kept
 * and exported again. So the file's bytes and its name are on disk before the id is used.
 */
describe("an export directory's location file", () => {
  it('keeps the id it was given', async () => {
    const directory = join(root, 'kept');
    const id = await exportLocation(directory);
    expect(id).toMatch(/^exports_[0-9a-f-]{36}$/);
    expect(await exportLocation(directory)).toBe(id);
    expect(readFileSync(join(directory, EXPORT_LOCATION_FILE), 'utf8')).toBe(`${id}\n`);
  });

  it('refuses an empty one, naming it and what to do, and leaves it as it is', async () => {
    for (const [name, text] of [
      ['empty', ''],
      ['blank', ' \n'],
    ]) {
      const directory = join(root, name!);
      mkdirSync(directory);
      const file = join(directory, EXPORT_LOCATION_FILE);
      writeFileSync(file, text!);
      // Read as an id, '' would name every directory whose file is empty alike.
      await expect(exportLocation(directory)).rejects.toThrow(
        `retention_export_failed: ${file}: it is empty, so it names no export directory; remove it for the next pass to write a new one`,
      );
      expect(readFileSync(file, 'utf8')).toBe(text);
    }
  });

  it.skipIf(noStrace !== null)('is synced, and its directory too, when it is first written', () => {
    const directory = join(root, 'exports');
    const file = join(directory, EXPORT_LOCATION_FILE);
    const lines = tracedFirstUse(directory);
    const written = lines.findIndex(
      (line) => /\bwrite\(\d+</.test(line) && line.includes(`<${file}>`),
    );
    expect(written, 'the location file is written').toBeGreaterThanOrEqual(0);
    const synced = (path: string) =>
      lines
        .slice(written)
        .some((line) => /\bf(data)?sync\(\d+</.test(line) && line.includes(`<${path}>) = 0`));
    expect(synced(file), `${file} synced`).toBe(true);
    expect(synced(directory), `${directory} synced`).toBe(true);
  });
});
