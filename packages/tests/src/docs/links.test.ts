import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LINKED_PAGES, REPO_ROOT } from './samples.js';

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const text = markdown.replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchor(match[1]!)));
}

describe('links in the docs pages', () => {
  for (const page of LINKED_PAGES) {
    it(`${page} links only to files and headings that exist`, () => {
      const markdown = readFileSync(join(REPO_ROOT, page), 'utf8');
      const text = markdown.replace(/```[\s\S]*?```/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [file = '', hash] = target!.split('#');
        const path = file === '' ? join(REPO_ROOT, page) : join(REPO_ROOT, dirname(page), file);
        expect(existsSync(path), `${page}: ${target}`).toBe(true);
        if (hash)
          expect(anchorsOf(readFileSync(path, 'utf8')).has(hash), `${page}: ${target}`).toBe(true);
      }
    });
  }
});

/** Repository paths a page names in code spans (`packages/server/src/…`), globs left out. */
function namedPaths(markdown: string): string[] {
  const text = markdown.replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/`((?:packages|scripts|docs|\.ci)\/[^`\s]+)`/g)]
    .map((match) => match[1]!.replace(/[#:].*$/, ''))
    .filter((path) => !/[*{]/.test(path));
}

/**
 * Whether git ignores a path: something a command makes (the agents' cache that
 * install-agents.sh fills), named by the docs but no file of the repository.
 */
function ignoredByGit(path: string): boolean {
  // As a file, and as a folder: a pattern ending in / matches only a folder, and an absent
  // path is neither until git is told.
  return [path, `${path.replace(/\/$/, '')}/`].some((candidate) => {
    try {
      execFileSync('git', ['check-ignore', '--quiet', '--no-index', candidate], { cwd: REPO_ROOT });
      return true;
    } catch {
      return false;
    }
  });
}

describe('paths named in the docs pages', () => {
  it('finds a named path that is missing (so a pass means something)', () => {
    expect(namedPaths('see `packages/nope/x.ts`, `docs/*.md` and `packages/a/{b,c}.ts`')).toEqual([
      'packages/nope/x.ts',
    ]);
  });

  it('leaves out what git ignores (made by a command, absent from a fresh clone), and only that', () => {
    expect(ignoredByGit('packages/tests/.agents-cache')).toBe(true);
    expect(ignoredByGit('packages/nope/x.ts')).toBe(false);
  });

  for (const page of LINKED_PAGES) {
    it(`${page} names only repository files that exist`, () => {
      const missing = namedPaths(readFileSync(join(REPO_ROOT, page), 'utf8')).filter(
        (path) => !existsSync(join(REPO_ROOT, path)) && !ignoredByGit(path),
      );
      expect(missing, page).toEqual([]);
    });
  }
});

describe('the docs index', () => {
  it('docs/README.md links every page of docs/', () => {
    const index = readFileSync(join(REPO_ROOT, 'docs', 'README.md'), 'utf8');
    const linked = new Set([...index.matchAll(/\]\(([^)#\s]+)/g)].map((match) => match[1]));
    const unlisted = readdirSync(join(REPO_ROOT, 'docs'))
      .filter((file) => file.endsWith('.md') && file !== 'README.md')
      .filter((file) => !linked.has(file));
    expect(unlisted).toEqual([]);
  });
});
