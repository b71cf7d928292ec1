import { describe, expect, it } from 'vitest';
import { changeWords, inputChanges, sameJson } from './input-changes.js';

describe('inputChanges', () => {
  it('walks objects field by field and names each change by its dotted path', () => {
    const changes = inputChanges(
      { command: 'rm -rf ./build', env: { CI: '1', KEEP: 'x' }, cwd: '/srv' },
      { command: 'rm -rf ./build/cache', env: { CI: '1' }, timeout: 30, cwd: '/srv' },
    );
    expect(changes).toEqual([
      { path: 'command', before: 'rm -rf ./build', after: 'rm -rf ./build/cache' },
      { path: 'env.KEEP', before: 'x' },
      { path: 'timeout', after: 30 },
    ]);
    expect(changeWords(changes)).toBe(
      'command "rm -rf ./build" → "rm -rf ./build/cache"; env.KEEP removed (was "x"); timeout added: 30',
    );
  });

  it('compares arrays and scalars whole, and finds nothing in an equal input', () => {
    expect(inputChanges({ args: ['a', 'b'] }, { args: ['a'] })).toEqual([
      { path: 'args', before: ['a', 'b'], after: ['a'] },
    ]);
    expect(inputChanges('ls', 'ls -la')).toEqual([
      { path: 'input', before: 'ls', after: 'ls -la' },
    ]);
    expect(inputChanges({ a: 1, b: [1] }, { b: [1], a: 1 })).toEqual([]);
    expect(changeWords([])).toBe('no field changed');
  });

  it('cuts long values in words', () => {
    const words = changeWords(inputChanges({ content: 'x'.repeat(200) }, { content: 'y' }));
    expect(words).toBe(`content "${'x'.repeat(59)}… → "y"`);
  });
});

describe('sameJson', () => {
  it('ignores key order, not values or array order', () => {
    expect(sameJson({ a: 1, b: { c: null } }, { b: { c: null }, a: 1 })).toBe(true);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
    expect(sameJson({ a: undefined }, {})).toBe(false);
    expect(sameJson(null, {})).toBe(false);
  });
});
