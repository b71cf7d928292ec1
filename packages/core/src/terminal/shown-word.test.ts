import { describe, expect, it } from 'vitest';
import { mayBeSecret, shownWord, unknownCommandLine, unknownVerbLine } from './shown-word.js';

/** A token as `airlock serve` prints one (alk_<kind>_ then 43 characters). */
const TOKEN = 'alk_member_0Fq3nB8xVt2yKpR7wLcD9eHsJ4uMaZ6gXiN1oQ5rTbY';

describe('a word a command line repeats', () => {
  it.each([
    ['a token', TOKEN],
    ['a token in a flag', `--token=${TOKEN}`],
    ['a quoted piece of a token', "'alk_agent_abc'"],
    ['a word past 40 characters', 'sk-proj-0123456789abcdefghijklmnopqrstuvwxyz'],
  ])('holds back %s', (_what, word) => {
    expect(mayBeSecret(word)).toBe(true);
    expect(shownWord(word)).toBe('(not repeated here: it may be a secret)');
    expect(unknownCommandLine(word)).toBe(
      `unknown ${word.startsWith('-') ? 'option' : 'command'} (not repeated here: it may be a secret)`,
    );
    expect(unknownVerbLine('runs', word, ['list', 'show'])).toBe(
      'airlock runs: unknown verb (not repeated here: it may be a secret) (list, show)',
    );
  });

  it.each(['sevre', '--jsn', 'toString', 'a'.repeat(40)])('repeats %s', (word) => {
    expect(mayBeSecret(word)).toBe(false);
    expect(shownWord(word)).toBe(word);
    expect(unknownVerbLine('runs', word, ['list'])).toBe(
      `airlock runs: unknown verb "${word}" (list)`,
    );
  });

  it.each(['--bogus', '-x', '--version'])('calls %s an unknown option, not a command', (word) => {
    expect(unknownCommandLine(word)).toBe(`unknown option ${word}`);
  });

  it('escapes the control characters of a word it repeats', () => {
    expect(unknownCommandLine('x\u001b]0;owned\u0007')).toBe('unknown command x\\x1b]0;owned\\x07');
  });
});
