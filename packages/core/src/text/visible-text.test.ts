import { describe, expect, it } from 'vitest';
import { hasHiddenCharacters, shortened, visibleText } from './visible-text.js';

describe('what an approval shows of the text an agent wrote', () => {
  it('marks bidirectional controls, so a command cannot read as another (Trojan Source)', () => {
    const command = 'echo "\u2067"; rm -rf ~; echo "#\u2069"';
    expect(visibleText(command)).toBe('echo "⟨U+2067⟩"; rm -rf ~; echo "#⟨U+2069⟩"');
    expect(hasHiddenCharacters(command)).toBe(true);
    expect(hasHiddenCharacters('rm -rf build')).toBe(false);
    expect(visibleText('a\u200bb\u202ec\ufeffd\u0007e')).toBe(
      'a⟨U+200B⟩b⟨U+202E⟩c⟨U+FEFF⟩d⟨U+0007⟩e',
    );
  });

  it('marks characters that draw nothing: tag characters spelling hidden ASCII, soft hyphen, fillers', () => {
    // "rm" in tag characters: invisible on screen, read by a model as the letters.
    expect(visibleText('ls\u{E0072}\u{E006D}')).toBe('ls⟨U+E0072⟩⟨U+E006D⟩');
    expect(hasHiddenCharacters('ls\u{E0072}\u{E006D}')).toBe(true);
    for (const character of [
      '\u00ad',
      '\u034f',
      '\u115f',
      '\u1160',
      '\u180e',
      '\u3164',
      '\uffa0',
    ]) {
      expect(hasHiddenCharacters(`a${character}b`)).toBe(true);
    }
    // An emoji's variation selector and a plain astral character stay as sent.
    expect(visibleText('ok \u2764\ufe0f 😀')).toBe('ok \u2764\ufe0f 😀');
    expect(hasHiddenCharacters('ok \u2764\ufe0f 😀')).toBe(false);
  });

  it('shows a long run of blanks or empty lines as a mark, so what follows stays in view', () => {
    expect(visibleText(`ls -la${' '.repeat(3000)}; rm -rf /`)).toBe(
      'ls -la ⟨3000 blanks⟩ ; rm -rf /',
    );
    expect(visibleText(`ls -la${'\n'.repeat(300)}rm -rf /`)).toBe(
      'ls -la\n⟨299 empty lines⟩\nrm -rf /',
    );
    expect(visibleText('one\n\ntwo\tthree  four')).toBe('one\n\ntwo\tthree  four');
  });

  it('shows tab and newline as marks in a one-line view, so a name cannot start a line', () => {
    expect(visibleText('deploy\r\nBcc: x\tz', { oneLine: true })).toBe(
      'deploy⟨U+000D⟩⟨U+000A⟩Bcc: x⟨U+0009⟩z',
    );
    expect(visibleText('a\nb')).toBe('a\nb');
  });

  it('keeps the end of a text it cuts, saying how much it left out', () => {
    const text = `ls ${'a'.repeat(500)} ; rm -rf /`;
    const line = shortened(text, 120);
    expect(line.endsWith('; rm -rf /')).toBe(true);
    expect(line).toMatch(/ …⟨\d+ more⟩… /);
    expect(shortened('short', 120)).toBe('short');
  });

  it('marks a lone surrogate, which a browser draws as a replacement character', () => {
    expect(visibleText('a\udc00b')).toBe('a⟨U+DC00⟩b');
    expect(visibleText('x\ud83d')).toBe('x⟨U+D83D⟩');
    // A pair is the character it spells, as sent.
    expect(visibleText('ok 😀')).toBe('ok 😀');
    expect(hasHiddenCharacters('😀')).toBe(false);
  });

  it('never cuts a character spelled by two UTF-16 units in half', () => {
    const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    for (let pad = 0; pad < 4; pad += 1) {
      const text = `${'a'.repeat(pad)}${'😀'.repeat(80)}`;
      for (const max of [20, 21, 40, 41, 57]) {
        const line = shortened(text, max);
        expect(lone.test(line), `pad ${pad}, max ${max}: ${line}`).toBe(false);
        expect(line).toMatch(/ …⟨\d+ more⟩… /);
      }
    }
  });
});
