import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './samples.js';

/** How far the built script may drift from the page's figure before the page is stale. */
const TOLERANCE = 0.15;

/*
 * docs/web-inbox.md gives the size of the inbox page's script, a figure a
 * reader checks with `ls -l packages/inbox/dist/assets`. The page is built
 * before the tests run (`pnpm test` builds every package).
 */
describe('docs/web-inbox.md: the size of the inbox script', () => {
  it('is within 15 % of the script the build writes', () => {
    const page = readFileSync(join(REPO_ROOT, 'docs', 'web-inbox.md'), 'utf8').replace(/\s+/g, ' ');
    const stated =
      /to (\d+) KB \((\d+) KB gzipped\)[^`]*`[^`]*`[^`]*`ls -l packages\/inbox\/dist\/assets`/.exec(
        page,
      );
    expect(stated, 'the page states the size and how to read it').not.toBeNull();
    // The script the built page loads (a stale file beside it is not the page's).
    const dist = join(REPO_ROOT, 'packages', 'inbox', 'dist');
    const html = readFileSync(join(dist, 'index.html'), 'utf8');
    const script = /src="\.\/(assets\/index-[^"]+\.js)"/.exec(html)?.[1];
    expect(script, `the script ${join(dist, 'index.html')} loads`).toBeDefined();
    const bytes = readFileSync(join(dist, script ?? ''));
    const shown = { raw: Number(stated?.[1]), gzipped: Number(stated?.[2]) };
    const built = { raw: bytes.length / 1000, gzipped: gzipSync(bytes).length / 1000 };
    for (const kind of ['raw', 'gzipped'] as const) {
      expect(
        Math.abs(built[kind] - shown[kind]) / shown[kind],
        `${kind}: the page says ${shown[kind]} KB, the build wrote ${built[kind].toFixed(1)} KB`,
      ).toBeLessThanOrEqual(TOLERANCE);
    }
  });
});
