import { describe, expect, it } from 'vitest';
import { forTerminal, refusalLines } from './terminal-text.js';

describe('forTerminal', () => {
  it('writes escape sequences, line breaks and bidirectional overrides as escapes', () => {
    expect(forTerminal('a\u001b[2Jb\nc\rd\u202ee\u009bf')).toBe('a\\x1b[2Jb\\nc\\rd\\u202ee\\x9bf');
  });
  it('leaves tabs and printable text, accents and emoji included, as they are', () => {
    expect(forTerminal('tab\there é 🚀')).toBe('tab\there é 🚀');
  });
});

describe('refusalLines', () => {
  it('says code and detail, then one line a problem with its pointer and code', () => {
    expect(
      refusalLines({
        code: 'invalid_configuration',
        detail: 'the configuration has 2 problem(s)',
        problems: [
          { code: 'tool_manifest_invalid', pointer: '/tool_manifest/0', message: 'bad\u001b[31m' },
          { code: 'not_an_object', pointer: '', message: 'want an object' },
        ],
      }),
    ).toEqual([
      'invalid_configuration: the configuration has 2 problem(s)',
      '  /tool_manifest/0: bad\\x1b[31m (tool_manifest_invalid)',
      '  /: want an object (not_an_object)',
    ]);
  });
  it('says a lone problem once when the detail already says it (one line, its code kept)', () => {
    const message = 'Too big: expected string to have <=200 characters';
    expect(
      refusalLines({
        code: 'invalid_input',
        detail: `/run_id: ${message}`,
        problems: [{ code: 'too_big', pointer: '/run_id', message }],
      }),
    ).toEqual([`invalid_input: /run_id: ${message} (too_big)`]);
    // A detail that adds to the problem (`; nothing was changed`) still holds all it says.
    expect(
      refusalLines({
        code: 'invalid_json',
        detail: '/: not JSON; nothing was changed',
        problems: [{ code: 'invalid_json', pointer: '', message: 'not JSON' }],
      }),
    ).toEqual(['invalid_json: /: not JSON; nothing was changed (invalid_json)']);
  });
  it('says a lone problem once when the detail is its message without the pointer', () => {
    // The SDK's refusal of a url carrying a password: the same text twice before.
    const message = 'url must carry no user or password: the credential goes in `token`';
    expect(
      refusalLines({
        code: 'invalid_input',
        detail: message,
        problems: [{ code: 'invalid_input', pointer: '/url', message }],
      }),
    ).toEqual([`invalid_input: /url: ${message} (invalid_input)`]);
  });
  it('lists a lone problem the detail does not say', () => {
    expect(
      refusalLines({
        code: 'invalid_input',
        detail: 'cursor: not a cursor this list returned',
        problems: [{ code: 'invalid_cursor', pointer: '/cursor', message: 'pass one as it came' }],
      }),
    ).toEqual([
      'invalid_input: cursor: not a cursor this list returned',
      '  /cursor: pass one as it came (invalid_cursor)',
    ]);
  });
  it('is one line when the refusal lists no problems', () => {
    expect(refusalLines({ code: 'forbidden', detail: 'no' })).toEqual(['forbidden: no']);
  });
});
