import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideShell as decide, denySecrets } from './fixtures/shell-decide.js';

/**
 * `find` prints names unless an action reads, runs, writes or removes what it finds: whatever
 * its tests and their order, under a deny of secrets/** it asks exactly when a starting point
 * is secrets/ itself, or an action is given and a starting point (`.` when none) holds secrets/.
 */
describe('find asks exactly when it names secrets/ or acts on a tree holding it', () => {
  it('for drawn starting points, tests and actions', () => {
    const starts = fc.subarray(['.', 'src', 'docs', '/repo', 'secrets', 'src/../secrets']);
    const tests = fc.subarray(['-name "*.ts"', '-name .env', '-type f', '-maxdepth 2', '-print']);
    const action = fc.option(
      fc.constantFrom('-exec cat {} +', '-execdir cat {} ;', '-ok cat {} ;', '-delete'),
    );
    const moreTests = fc.subarray(['-iname "*.key"', '-ls', '-path "src/*"', '-newer src/a.ts']);
    let asked = 0;
    let granted = 0;
    fc.assert(
      fc.property(starts, tests, action, moreTests, (s, t, a, m) => {
        const line = ['find', ...s, ...t, ...(a === null ? [] : [a]), ...m].join(' ');
        const named = s.some((start) => start.endsWith('secrets'));
        const holds = s.length === 0 || s.includes('.') || s.includes('/repo');
        const asks = named || (a !== null && holds);
        if (asks) asked += 1;
        else granted += 1;
        expect(decide(line, [denySecrets]).verdict, line).toBe(asks ? 'ask' : 'allow');
      }),
      { numRuns: 400 },
    );
    // Both sides must be drawn for it to say anything (~345 and ~55 of 400 from the fixed seed).
    expect(asked).toBeGreaterThan(150);
    expect(granted).toBeGreaterThan(15);
  });
});
