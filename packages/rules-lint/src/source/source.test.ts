import { pointerFrom, pointerTokens } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { locatePointer, parseDocument } from './document.js';
import { resolvePointer } from './json-pointer.js';
import { LineIndex } from './line-index.js';
import { MAX_NESTING_DEPTH, parseJson } from './parse-json.js';
import { decodeSource, MAX_SOURCE_BYTES } from './read-source.js';

describe('LineIndex', () => {
  it('maps offsets to 1-based lines and UTF-16 columns across LF, CRLF and CR', () => {
    const lines = new LineIndex('ab\ncd\r\nef\rgh');
    expect(lines.position(0)).toEqual({ line: 1, column: 1 });
    expect(lines.position(4)).toEqual({ line: 2, column: 2 });
    expect(lines.position(7)).toEqual({ line: 3, column: 1 });
    expect(lines.position(10)).toEqual({ line: 4, column: 1 });
    expect(lines.lineText(2)).toBe('cd');
    expect(lines.position(999)).toEqual({ line: 4, column: 3 });
  });
});

describe('JSON pointers', () => {
  it('round-trips escaped tokens', () => {
    expect(pointerTokens('/a~1b/~0c/0')).toEqual(['a/b', '~c', '0']);
    expect(pointerFrom(['a/b', '~c', 0])).toBe('/a~1b/~0c/0');
    expect(pointerTokens('')).toEqual([]);
  });

  it('resolves to the value, the key, or the deepest existing ancestor', () => {
    const parsed = parseJson('{"rules": [{"tool": "bash"}]}', { allowComments: false });
    if (!parsed.ok) throw new Error(parsed.message);
    const exact = resolvePointer(parsed.root, '/rules/0/tool');
    expect(exact.exact).toBe(true);
    expect(exact.node.value).toBe('bash');
    expect(exact.keyNode?.value).toBe('tool');
    const missing = resolvePointer(parsed.root, '/rules/0/verdict');
    expect(missing.exact).toBe(false);
    expect(missing.node.type).toBe('object');
  });

  it('locates a multi-line container by its opening bracket only', () => {
    const parsed = parseDocument('x.json', '[\n  {\n    "tool": "bash"\n  }\n]');
    if (!parsed.ok) throw new Error(parsed.message);
    expect(locatePointer(parsed.document, '/0')).toMatchObject({ line: 2, column: 3, length: 1 });
    expect(locatePointer(parsed.document, '/0/tool', 'key')).toMatchObject({
      line: 3,
      column: 5,
      endColumn: 11,
    });
  });
});

describe('parseJson', () => {
  it('allows comments only when asked', () => {
    expect(parseJson('// c\n[]', { allowComments: true }).ok).toBe(true);
    const refused = parseJson('// c\n[]', { allowComments: false });
    expect(refused.ok ? '' : refused.message).toContain('*.jsonc');
  });

  it('allows trailing commas only in JSONC, keeping commas inside strings', () => {
    const text =
      '[\n  {"tool": "bash", "reason": "a, ]",}, // last rule\n  {"tool": "x", /* c */ },\n]';
    const parsed = parseJson(text, { allowComments: true });
    expect(parsed.ok && parsed.value).toEqual([{ tool: 'bash', reason: 'a, ]' }, { tool: 'x' }]);
    const refused = parseJson('[{"tool": "bash"},]', { allowComments: false });
    expect(refused.ok).toBe(false);
  });

  it('refuses nesting past the bound before building the tree, and accepts it at the bound', () => {
    const deep = parseJson(
      `${'['.repeat(MAX_NESTING_DEPTH + 1)}${']'.repeat(MAX_NESTING_DEPTH + 1)}`,
      { allowComments: false },
    );
    expect(deep).toMatchObject({ ok: false, offset: MAX_NESTING_DEPTH });
    expect(
      parseJson(`${'['.repeat(MAX_NESTING_DEPTH)}${']'.repeat(MAX_NESTING_DEPTH)}`, {
        allowComments: false,
      }).ok,
    ).toBe(true);
    expect(parseJson('["[[[[", "{{{{"]', { allowComments: false }).ok).toBe(true);
  });

  it('keeps a "__proto__" key as an own key, as JSON.parse does', () => {
    const parsed = parseJson('{"__proto__": {"x": 1}}', { allowComments: false });
    expect(parsed.ok && Object.keys(parsed.value as object)).toEqual(['__proto__']);
  });

  it('reports the first syntax error with its offset', () => {
    expect(parseJson('[1,]', { allowComments: false })).toMatchObject({ ok: false, offset: 3 });
  });
});

describe('decodeSource', () => {
  it('drops a BOM (kept aside for a fix to write back) and refuses NUL bytes, invalid UTF-8 and oversized input', () => {
    expect(decodeSource('f', new Uint8Array([0xef, 0xbb, 0xbf, 0x5b, 0x5d]))).toEqual({
      ok: true,
      text: '[]',
      byteOrderMark: '\uFEFF',
    });
    expect(decodeSource('f', new Uint8Array([0x5b, 0x5d]))).toEqual({
      ok: true,
      text: '[]',
      byteOrderMark: '',
    });
    expect(decodeSource('f', new Uint8Array([0x5b, 0x00, 0x5d])).ok).toBe(false);
    expect(decodeSource('f', new Uint8Array([0x5b, 0xff, 0x5d])).ok).toBe(false);
    expect(decodeSource('f', new Uint8Array(MAX_SOURCE_BYTES + 1)).ok).toBe(false);
  });
});
