import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './samples.js';

const read = (page: string) => readFileSync(join(REPO_ROOT, page), 'utf8');

/** The pages that tell a newcomer which Node to install before `./run start`. */
const FIRST_RUN_PAGES = ['README.md', 'docs/getting-started.md'];

describe('the Node version the first-run pages ask for', () => {
  const range: string = JSON.parse(read('package.json')).engines.node;
  const [, minimum] = /^>=(\d+\.\d+)$/.exec(range) ?? [];

  it("is the repository's engines.node minimum, on every first-run page", () => {
    expect(minimum, `engines.node ${range}`).toBeDefined();
    for (const page of FIRST_RUN_PAGES) {
      const text = read(page);
      expect(text, page).toContain(`Node ${minimum} or later`);
      // A bare major ("Node 20 and npm") reads as if any 20.x would install.
      const bare = [...text.matchAll(/\bNode (\d+)(?![.\d])/g)].map((match) => match[0]);
      expect(bare, page).toEqual([]);
    }
  });
});
