import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { CALL_NAME_MAX, checkToolNames, toolNameProblem } from './tool-names.js';

const tools = (...names: string[]): Tool[] =>
  names.map((name) => ({ name, inputSchema: { type: 'object' } }));

const UNSTORABLE = 'holds NUL (U+0000) or a lone surrogate, which the kernel keeps in no name';

describe('toolNameProblem', () => {
  it.each([
    ['read_file', null],
    ['get-weather.v2', null],
    ['écrire', null],
    // A hidden character is the kernel's to refuse at registration, with its own problem code.
    ['write\u200bfile', null],
    // fs__ takes 4 of the kernel's 512 characters.
    ['x'.repeat(CALL_NAME_MAX - 4), null],
    [
      'x'.repeat(CALL_NAME_MAX - 3),
      "is 513 characters long as fs__…, more than the 512 the kernel takes in a call's name",
    ],
    ['bad\u0000', UNSTORABLE],
    ['lone\ud800', UNSTORABLE],
    // The kernel judges a runner-qualified name as its stem: fs__read_file's rules and manifest.
    [
      'read_file__00000000beef',
      'ends in __ and 12 hex digits, which the kernel reads as a runner qualification: its calls would be judged as fs__read_file',
    ],
    ['read_file__00000000BEEF', null],
    ['read_file__0000000beef', null],
  ])('%j: %s', (name, problem) => {
    expect(toolNameProblem('fs', name)).toBe(problem);
  });
});

describe('checkToolNames', () => {
  it('takes names it can serve', () => {
    expect(() => checkToolNames('fs', tools('read_file', 'write_file'))).not.toThrow();
  });

  it('names the server and every tool it cannot serve, hidden characters shown as marks', () => {
    expect(() => checkToolNames('fs', tools('ok', 'bad\u0000', 'ok', 'x\ud800'))).toThrow(
      `the MCP server fs cannot be served: the tool name "bad⟨U+0000⟩" ${UNSTORABLE}; the tool "ok" is listed twice; the tool name "x⟨U+D800⟩" ${UNSTORABLE}`,
    );
  });
});
