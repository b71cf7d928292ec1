import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { DOC_PAGES, REPO_ROOT } from './samples.js';

const run = promisify(execFile);
const CLI = join(REPO_ROOT, 'packages', 'server', 'dist', 'cli.js');

/** The paragraphs (and list items) of a page, outside code blocks. */
function paragraphs(page: string): string[] {
  const text = readFileSync(join(REPO_ROOT, page), 'utf8').replace(/```[\s\S]*?```/g, '');
  return text.split(/\n\s*\n|\n- /).map((paragraph) => paragraph.replace(/\s+/g, ' '));
}

/*
 * How long a park or a question waits is `airlock serve --park-ttl`: a page
 * that gives the wait in hours names the flag beside it, so an operator who
 * set it is not told the default as if it were fixed.
 */
describe('the park clock in the docs', () => {
  it('is named as --park-ttl wherever a page gives a park or question its hours', () => {
    const fixed: string[] = [];
    for (const page of DOC_PAGES) {
      for (const paragraph of paragraphs(page)) {
        const hours = /\b\d+-hour clock|\bexpires? after \d+ hours?\b/.exec(paragraph);
        if (hours && !paragraph.includes('--park-ttl')) fixed.push(`${page}: ${hours[0]}`);
      }
    }
    expect(fixed).toEqual([]);
  });

  it('gives the default airlock serve --help prints', { timeout: 60_000 }, async () => {
    const { stdout } = await run(process.execPath, [CLI, 'serve', '--help']);
    expect(stdout).toMatch(/--park-ttl[\s\S]*?default 24h\)/);
    const concepts = paragraphs('docs/concepts.md').filter((p) => p.includes('--park-ttl'));
    expect(concepts.length).toBeGreaterThan(0);
    for (const paragraph of concepts) expect(paragraph).toContain('24 hours by default');
  });
});
