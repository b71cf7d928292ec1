import { describe, expect, it } from 'vitest';
import { callTargets, canonicalPath, canonicalUrl, valuesAtPointer } from './targets.js';

describe('path canonicalization', () => {
  it.each([
    ['./src/../src/a.ts', 'src/a.ts', true],
    ['src//a.ts', 'src/a.ts', true],
    ['/repo/src/a.ts', 'src/a.ts', true],
    ['/repo', '.', true],
    ['.', '.', true],
    ['../etc/passwd', '/etc/passwd', false],
    ['src/../../etc/passwd', '/etc/passwd', false],
    ['/repository/a.ts', '/repository/a.ts', false],
    ['/etc/hosts', '/etc/hosts', false],
    ['../../../../x', '/x', false],
  ])('%s under /repo is %s (rooted %s)', (raw, text, rooted) => {
    expect(canonicalPath(raw, '/repo')).toEqual({ kind: 'path', text, rooted, raw });
  });

  it('without a project root, relative paths normalize and escapes stay unrooted', () => {
    expect(canonicalPath('./a/../b', undefined)).toMatchObject({ text: 'b', rooted: true });
    expect(canonicalPath('../b', undefined)).toMatchObject({ text: '../b', rooted: false });
    expect(canonicalPath('/abs/./x', undefined)).toMatchObject({ text: '/abs/x', rooted: false });
  });
});

describe('URL canonicalization', () => {
  it.each([
    ['HTTPS://Example.COM:443/a/./b/../c', 'https://example.com/a/c'],
    ['http://example.com:80/', 'http://example.com/'],
    ['http://example.com:8080/x', 'http://example.com:8080/x'],
    ['not a url', 'not a url'],
    // Credentials and a trailing dot name no other place: a rule reads the host alone.
    ['https://u:p@internal.example.com/x', 'https://internal.example.com/x'],
    ['https://internal.example.com./x', 'https://internal.example.com/x'],
    ['https://internal.example.com../x', 'https://internal.example.com/x'],
    ['https://api.example.com@evil.test/x', 'https://evil.test/x'],
    ['ftp://user@files.example.com:21/a', 'ftp://files.example.com/a'],
  ])('%s -> %s', (raw, text) => {
    expect(canonicalUrl(raw).text).toBe(text);
  });
});

describe('target pointers', () => {
  it('walks every array element at a * token', () => {
    const input = { edits: [{ path: 'a' }, { path: 'b' }, { other: 1 }], path: 'c' };
    expect(valuesAtPointer(input, '/edits/*/path')).toEqual(['a', 'b']);
    expect(valuesAtPointer(input, '/edits/1/path')).toEqual(['b']);
    expect(valuesAtPointer(input, '/missing/*')).toEqual([]);
  });

  it('reads a list or an object sent where the manifest points at one path or a list', () => {
    expect(valuesAtPointer({ path: ['a', '', 7, 'b'] }, '/path')).toEqual(['a', 'b']);
    expect(
      valuesAtPointer({ edits: { x: { path: 'a' }, y: { path: 'b' } } }, '/edits/*/path'),
    ).toEqual(['a', 'b']);
    // An own key named * is read as written.
    expect(valuesAtPointer({ edits: { '*': { path: 'c' } } }, '/edits/*/path')).toEqual(['c']);
  });

  it('collects path and URL targets in manifest order', () => {
    const targets = callTargets(
      {
        targets: [
          { pointer: '/edits/*/path', kind: 'path' },
          { pointer: '/source', kind: 'url' },
        ],
      },
      { edits: [{ path: './x/../y.ts' }, { path: '../z' }], source: 'HTTP://A.b:80/' },
      '/repo',
    );
    expect(targets.map((t) => [t.kind, t.text, t.rooted])).toEqual([
      ['path', 'y.ts', true],
      ['path', '/z', false],
      ['url', 'http://a.b/', false],
    ]);
  });
});
