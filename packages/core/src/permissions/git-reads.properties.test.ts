import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideShell as decide, denySecrets } from './fixtures/shell-decide.js';

/**
 * A git command that prints a patch reads every tracked path its pathspecs reach: whatever
 * git's global options, the other options beside the patch option and their order, one whose
 * pathspecs may reach secrets/ (none at all or only an exclusion, `.`, a wildcard, `:/`) asks
 * under a deny of secrets/**, and one limited to src/ and docs/ alone runs unasked.
 */
describe('a git command printing a patch asks exactly when its pathspecs may reach secrets/', () => {
  it('for drawn global options, verbs, options and pathspecs', () => {
    const globals = fc.subarray(['--no-pager', '-P', '-c color.ui=never', '-C .', '--paginate']);
    const verb = fc.constantFrom(
      ['diff'],
      ['diff', 'HEAD~1'],
      ['show', 'HEAD'],
      ['log', '-p'],
      ['log', '--patch'],
      ['log', '-S', 'x'],
      ['diff-tree', '-p', 'HEAD'],
      ['format-patch', '-1', '--stdout'],
    );
    const options = fc.subarray([
      '--patch-with-stat',
      '--oneline',
      '--color',
      '-w',
      '--cached',
      '-U5',
    ]);
    const outside = fc.subarray(['src', 'docs/a.md', './src', 'src/*.ts']);
    const reaching = fc.subarray(['secrets', '.', '*.key', ':!secrets', ':/', 'sec*', 's?crets']);
    let asked = 0;
    let granted = 0;
    fc.assert(
      fc.property(globals, verb, options, outside, reaching, (g, v, o, out, reach) => {
        const specs = [...out, ...reach].map((spec) => `'${spec}'`);
        const line = ['git', ...g, ...v, ...o, '--', ...specs].join(' ');
        // An exclusion limits nothing: alone it leaves the whole tree read.
        const including = reach.filter((spec) => !spec.startsWith(':!'));
        const reaches = including.length > 0 || out.length === 0;
        if (reaches) asked += 1;
        else granted += 1;
        expect(decide(line, [denySecrets]).verdict, line).toBe(reaches ? 'ask' : 'allow');
      }),
      { numRuns: 600 },
    );
    // Both sides of the property must be drawn for it to say anything.
    expect(asked).toBeGreaterThan(100);
    expect(granted).toBeGreaterThan(10);
  });
});
