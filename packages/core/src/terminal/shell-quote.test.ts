import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellQuoted } from './shell-quote.js';

describe('a word quoted for a POSIX shell', () => {
  it('leaves a plain path bare', () => {
    expect(shellQuoted('/srv/airlock/.airlock')).toBe('/srv/airlock/.airlock');
    expect(shellQuoted('')).toBe("''");
  });

  it('reads back as the same word in a real sh, whatever it holds', () => {
    const words = [
      "it's here",
      'a b',
      '$(rm -rf ~)',
      '`id`',
      'x;y|z&',
      '*?[a]',
      '~root',
      'tab\there',
      'line\nbreak',
      "''",
    ];
    const printed = execFileSync(
      'sh',
      ['-c', `printf '%s\\0' ${words.map(shellQuoted).join(' ')}`],
      {
        encoding: 'utf8',
      },
    );
    expect(printed.split('\0').slice(0, -1)).toEqual(words);
  });
});
