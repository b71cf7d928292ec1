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

  it('names the controls JSON would write as escapes: a carriage return, an escape, a backspace', () => {
    // In a terminal, `\r` goes back to the line's start and what follows overwrites what came before.
    for (const command of ['echo safe\rrm -rf ~', 'ls \u001b[2K', 'ls x\by', 'a\u0000b']) {
      expect(hiddenTextWarning('bash', { command })).toMatch(/^This call holds characters/);
    }
    expect(hiddenTextWarning('write', { 'pa\rth': 'x' })).toMatch(/^This call holds characters/);
    // Tab and newline are text: a file's lines and its indentation.
    expect(hiddenTextWarning('write', { content: 'a\tb\nc' })).toBeNull();
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
