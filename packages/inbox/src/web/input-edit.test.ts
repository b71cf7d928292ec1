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
