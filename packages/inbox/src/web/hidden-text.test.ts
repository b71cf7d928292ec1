import { describe, expect, it } from 'vitest';
import { hiddenTextWarning } from './hidden-text.js';

describe('the warning above a call that reads other than it runs', () => {
  it('names hidden characters in the input or the tool name', () => {
    expect(hiddenTextWarning('write', { content: 'echo "\u2067"; rm -rf ~' })).toBe(
      'This call holds characters that change how text reads without showing (shown as ⟨U+…⟩). What runs is the text as sent.',
    );
    expect(hiddenTextWarning('bash\u202ehsab', { command: 'ls' })).toMatch(
      /^This call holds characters/,
    );
  });

  it('names a long run of blanks that pushes text out of view, not indentation', () => {
    expect(hiddenTextWarning('write', { content: `ok=1${' '.repeat(300)}; rm -rf ~` })).toBe(
      'This call holds long runs of blanks that push text out of view (shown as ⟨N blanks⟩). What runs is the text as sent.',
    );
    expect(hiddenTextWarning('write', { content: `${' '.repeat(60)}rm -rf ~` })).not.toBeNull();
    expect(hiddenTextWarning('write', { content: 'def f():\n        return 1\n' })).toBeNull();
    expect(hiddenTextWarning('bash', { command: 'ls' })).toBeNull();
  });

  it('names both when there are both', () => {
    expect(hiddenTextWarning('write', { content: `\u202e x${'\t'.repeat(9)}y` })).toMatch(
      /characters that change how text reads .* and long runs of blanks/,
    );
  });
});
