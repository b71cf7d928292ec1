import { readdirSync, readFileSync } from 'node:fs';
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
    const assets = join(REPO_ROOT, 'packages', 'inbox', 'dist', 'assets');
    const script = readdirSync(assets).find((file) => /^index-.*\.js$/.test(file));
    expect(script, `the built page's script in ${assets}`).toBeDefined();
    const bytes = readFileSync(join(assets, script ?? ''));
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
