import { describe, expect, it } from 'vitest';
import { editableText, inputDiffLines, readEditedInput } from './input-edit.js';

describe('readEditedInput', () => {
  const original = { command: 'rm -rf ./build', cwd: '/srv' };

  it('reads valid JSON and says whether it changed, whatever the key order', () => {
    expect(readEditedInput('{"cwd":"/srv","command":"rm -rf ./build"}', original)).toEqual({
      ok: true,
      value: original,
      changed: false,
    });
    expect(readEditedInput(editableText({ command: 'ls' }), original)).toEqual({
      ok: true,
      value: { command: 'ls' },
      changed: true,
    });
    expect(readEditedInput('null', null)).toMatchObject({ ok: true, changed: false });
  });

  it('refuses invalid JSON with the line and column where it goes wrong', () => {
    // A comma missing after the first property: the parser stops at the second.
    const read = readEditedInput('{\n  "command": "ls"\n  "cwd": "/srv"\n}', original);
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.message).toMatch(/^Not valid JSON \(line 3, column 3\): Expected ',' or '}'/);
    expect(read.message).not.toMatch(/position/);
  });

  it('refuses a number that would be sent as other digits than typed, wherever it is', () => {
    const read = readEditedInput('{\n  "id": 12345678901234567890\n}', original);
    expect(read).toEqual({
      ok: false,
      message:
        'Not sent as typed (line 2, column 9): 12345678901234567890 is an integer past 2^53 that would be sent as 12345678901234567000; write it as a string',
    });
    expect(readEditedInput('[1e400]', original)).toMatchObject({
      ok: false,
      message:
        'Not sent as typed (line 1, column 2): 1e400 is past the largest number JSON carries (sent as null)',
    });
    expect(readEditedInput('{"n": -90071992547409930}', original)).toMatchObject({ ok: false });
    // Digits inside a string, safe integers, fractions and exponents are sent as typed.
    for (const text of [
      '{"id": "12345678901234567890", "quote": "say \\"99999999999999999999\\""}',
      '{"n": 9007199254740991, "m": -9007199254740991, "x": 0.1, "y": 1e21, "z": 1.5e-7}',
      // As a kernel writes a large integer back (an input it took), and one a double holds.
      '{"n": 12345678901234567000, "m": 1000000000000000000000, "z": -0}',
    ]) {
      expect(readEditedInput(text, original)).toMatchObject({ ok: true, changed: true });
    }
  });

  it('refuses a key given twice in one object, where the second one stands', () => {
    const text =
      '{\n  "command": "ls",\n  "nested": {"command": "ok"},\n  "command": "rm -rf /"\n}';
    expect(readEditedInput(text, original)).toEqual({
      ok: false,
      message:
        'Not sent as typed (line 4, column 3): the key "command" is given twice; only its last value would be sent',
    });
    // The same key in two objects, or as a value, is no repeat.
    for (const fine of [
      '{"a": {"k": 1}, "b": {"k": 2}}',
      '[{"k": 1}, {"k": 2}]',
      '{"k": "k", "v": ["k", "k"]}',
    ]) {
      expect(readEditedInput(fine, original)).toMatchObject({ ok: true });
    }
  });

  it('refuses an empty input', () => {
    expect(readEditedInput('  \n', original)).toEqual({
      ok: false,
      message: 'The input is empty: type it as JSON, for example {}.',
    });
  });
});

describe('inputDiffLines', () => {
  it('marks the changed lines of the indented JSON, and keeps the rest', () => {
    const lines = inputDiffLines(
      { command: 'rm -rf ./build', cwd: '/srv' },
      { command: 'rm -rf ./build/cache', cwd: '/srv' },
    );
    expect(lines.filter((line) => line.kind === 'removed').map((line) => line.text)).toEqual([
      '  "command": "rm -rf ./build",',
    ]);
    expect(lines.filter((line) => line.kind === 'added').map((line) => line.text)).toEqual([
      '  "command": "rm -rf ./build/cache",',
    ]);
    expect(lines.filter((line) => line.kind === 'kept').map((line) => line.text)).toEqual([
      '{',
      '  "cwd": "/srv"',
      '}',
    ]);
  });
});

describe('editableText', () => {
  it('writes a character that reorders or hides text as its JSON escape, and reads back the same input', () => {
    const input = {
      command: 'ls build \u202e# txt.ssecca',
      'k\u200bey': ['tag \u{e0041} end', 'del \u007f', 'émoji ✅ and תשובה stay'],
    };
    const text = editableText(input);
    expect(text).toBe(
      [
        '{',
        '  "command": "ls build \\u202e# txt.ssecca",',
        '  "k\\u200bey": [',
        '    "tag \\udb40\\udc41 end",',
        '    "del \\u007f",',
        '    "émoji ✅ and תשובה stay"',
        '  ]',
        '}',
      ].join('\n'),
    );
    expect(readEditedInput(text, input)).toEqual({ ok: true, value: input, changed: false });
    // An input without such characters is written as JSON writes it.
    expect(editableText({ command: 'ls' })).toBe('{\n  "command": "ls"\n}');
  });
});
