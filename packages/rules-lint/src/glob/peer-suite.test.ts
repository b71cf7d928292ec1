import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compilePathGlob } from '../cli/path-glob.js';
import { globIncluded } from './inclusion.js';

// Kirk J. Krauss's published wildcard cases (../shared/peer-suites): for ASCII text without `/`
// the linter's own globs must read `*` and `?` as that suite does, as core's matcher does.
const peerSuite = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../../../../../shared/peer-suites/krauss-wildcards.json',
);

interface PeerCase {
  readonly pattern: string;
  readonly text: string;
  readonly match: boolean;
}

describe('peer suite: Krauss wildcard cases through the linter', () => {
  if (!existsSync(peerSuite)) {
    it.skip(`skipped: ${peerSuite} is absent (the shared/ folder is not beside this checkout)`, () => {});
    return;
  }
  const { cases } = JSON.parse(readFileSync(peerSuite, 'utf8')) as { cases: PeerCase[] };

  it('holds all 203 published cases, none with a slash', () => {
    expect(cases).toHaveLength(203);
    expect(cases.filter((c) => c.pattern.includes('/') || c.text.includes('/'))).toEqual([]);
  });

  it('the command line path glob matches each text as published', () => {
    const wrong = cases.filter((c) => compilePathGlob(c.pattern).matches(c.text) !== c.match);
    expect(wrong).toEqual([]);
  });

  it('containment reads each wildcard-free text as inside the pattern exactly when it matches', () => {
    // A text holding `*` or `?` would be a glob itself here, not the literal text of the case.
    const literal = cases.filter((c) => !/[*?]/.test(c.text));
    expect(literal.length).toBeGreaterThan(100);
    const wrong = literal.filter((c) => globIncluded(c.text, [c.pattern]) !== c.match);
    expect(wrong).toEqual([]);
  });
});
