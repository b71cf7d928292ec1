import { describe, expect, it } from 'vitest';
import { fieldCodeOf } from './field-read.js';
import {
  parsePath,
  sourceAtOwnKey,
  sourceText,
  textAtPath,
  textOf,
  walkPath,
} from './tool-input-path.js';

describe('parsePath', () => {
  it.each([
    ['command', ['command']],
    ['edits.0.path', ['edits', '0', 'path']],
    ['a..b', null],
    ['.a', null],
    ['a.', null],
    ['', null],
  ])('%j -> %j', (path, expected) => {
    expect(parsePath(path)).toEqual(expected);
  });
});

describe('walking tool input', () => {
  const input = {
    command: 'ls -la',
    argv: ['rm', '-rf', '/'],
    edits: [{ path: 'src/a.ts' }, { path: 'b.env' }],
    mixed: ['x', 1, true, null, 2.5],
    nested: [['a'], 'b'],
    withObject: ['a', { b: 1 }],
    count: 3,
    flag: false,
    object: { key: 'value' },
    '0': 'key named zero',
  };

  it.each([
    ['command', 'ls -la', 'a string as is'],
    ['argv', 'rm -rf /', 'an array of strings joined by one space'],
    ['edits.0.path', 'src/a.ts', 'into an array by index, then an object by key'],
    ['edits.1.path', 'b.env', 'second element'],
    ['mixed', 'x 1 true null 2.5', 'scalars other than strings as their JSON text'],
    ['0', 'key named zero', 'a decimal key on an object is a key'],
    ['object.key', 'value', 'nested object'],
  ])('%s reads %j (%s)', (path, expected) => {
    expect(textAtPath(input, path.split('.'))).toBe(expected);
  });

  it.each([
    ['missing', 'an absent key'],
    ['edits.2.path', 'an index past the end'],
    ['edits.01.path', 'an index that is not plain decimal'],
    ['edits.-1.path', 'a negative index'],
    ['edits.x', 'a key on an array'],
    ['nested', 'a nested array'],
    ['withObject', 'an array holding an object'],
    ['count', 'a lone number'],
    ['flag', 'a lone boolean'],
    ['object', 'an object'],
    ['command.length', 'a walk into a string'],
    ['count.x', 'a walk into a number'],
  ])('%s has no text (%s)', (path) => {
    expect(textAtPath(input, path.split('.'))).toBeUndefined();
  });

  it('walks nowhere from null, scalars and inherited properties', () => {
    expect(walkPath(null, ['a'])).toBeUndefined();
    expect(walkPath('text', ['length'])).toBeUndefined();
    expect(walkPath({}, ['toString'])).toBeUndefined();
    expect(walkPath({}, ['__proto__'])).toBeUndefined();
  });

  it('reads a one-key text from own properties only', () => {
    const textAtOwnKey = (input: Record<string, unknown>, key: string) => {
      const source = sourceAtOwnKey(input, key, fieldCodeOf(key));
      return source === undefined ? undefined : sourceText(source);
    };
    const inherited = Object.create({ command: 'rm -rf /', argv: ['rm', '-rf', '/'] });
    expect(textAtOwnKey(inherited, 'command')).toBeUndefined();
    expect(textAtOwnKey(inherited, 'argv')).toBeUndefined();
    expect(textAtOwnKey({ command: 'ls' }, 'command')).toBe('ls');
    expect(textAtOwnKey({ argv: ['ls', '-la'] }, 'argv')).toBe('ls -la');
    expect(textAtOwnKey({ command: 7 }, 'command')).toBeUndefined();
    expect(textAtPath(['ls'], ['0'])).toBe('ls');
  });

  it('reads an empty array as the empty text', () => {
    expect(textOf([])).toBe('');
  });
});
