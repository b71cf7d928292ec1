import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AirlockError } from '../errors.js';
import { checkJsonText } from './json-text.js';

/** The refusal's code and first problem, or null when the text passes. */
function refusalOf(text: string): { code: string; problem?: string; pointer?: string } | null {
  try {
    checkJsonText(text);
    return null;
  } catch (error) {
    if (!(error instanceof AirlockError)) throw error;
    const problem = error.problems?.[0];
    return { code: error.code, problem: problem?.code, pointer: problem?.pointer };
  }
}

describe('the JSON text check', () => {
  it('passes every text JSON.stringify writes', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), (value) => {
        expect(refusalOf(JSON.stringify(value))).toBeNull();
        expect(refusalOf(JSON.stringify(value, null, 2))).toBeNull();
      }),
    );
  });

  it('finds a key named twice at any depth, with its pointer', () => {
    expect(refusalOf('{"a":1,"a":2}')).toEqual({
      code: 'invalid_json',
      problem: 'duplicate_key',
      pointer: '/a',
    });
    expect(refusalOf('{"tool_input":{"cmd":"ls","cmd":"rm -rf /"}}')?.pointer).toBe(
      '/tool_input/cmd',
    );
    expect(refusalOf('{"x":[1,{"k":0},{"k":1,"k":2}]}')?.pointer).toBe('/x/2/k');
    // The same key in sibling objects, or as a value, is no duplicate.
    expect(refusalOf('{"a":{"k":1},"b":{"k":1},"k":"k"}')).toBeNull();
    expect(refusalOf('{"a":"a","b":["a","a"]}')).toBeNull();
  });

  it('reads a key as JSON.parse does: escapes decoded, brackets and quotes in strings as text', () => {
    expect(refusalOf('{"a":1,"\\u0061":2}')?.pointer).toBe('/a');
    expect(refusalOf('{"a/b":1,"a\\/b":2}')?.pointer).toBe('/a~1b');
    expect(refusalOf('{"s":"{\\"s\\":1,","t":"]}","s2":1}')).toBeNull();
    expect(refusalOf('{"\\\\":1,"\\\\\\"":2}')).toBeNull();
  });

  it('puts every key it finds into the refusal, wherever a random one is repeated', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), {
          minKeys: 1,
        }),
        fc.string({ maxLength: 6 }),
        (object, wrapper) => {
          const [key] = Object.keys(object) as [string];
          const text = JSON.stringify({ [wrapper]: object });
          const repeated = `${text.slice(0, -2)},${JSON.stringify(key)}:0}}`;
          const pointer = `/${wrapper}/${key}`.replaceAll('~', '~0');
          const found = refusalOf(repeated);
          expect(found?.problem).toBe('duplicate_key');
          expect(found?.pointer?.replaceAll('~1', '/')).toBe(pointer.replaceAll('~1', '/'));
        },
      ),
    );
  });

  it('refuses an integer past 2^53 that JSON.parse would round, and a number past the largest double', () => {
    expect(refusalOf('{"tool_input":{"id":12345678901234567890}}')).toEqual({
      code: 'invalid_json',
      problem: 'inexact_number',
      pointer: '/tool_input/id',
    });
    expect(refusalOf('[1,9007199254740993]')?.pointer).toBe('/1');
    expect(refusalOf('{"n":-9007199254740993}')?.problem).toBe('inexact_number');
    expect(refusalOf('{"n":1e400}')?.problem).toBe('inexact_number');
    expect(refusalOf('{"n":-1E+309}')?.problem).toBe('inexact_number');
    expect(refusalOf(`{"n":${'9'.repeat(400)}}`)?.problem).toBe('inexact_number');
    // Read as written: the safe integers, 2^53, a double's own digits (as JSON.stringify writes them).
    expect(refusalOf('[9007199254740991,-9007199254740991,9007199254740992]')).toBeNull();
    expect(refusalOf('[41341348184070250,12345678901234567000,-1e21]')).toBeNull();
    // Past 1e21 the kernel writes an exponent; the digits it stands for are compared.
    expect(refusalOf('[1000000000000000000000,-1234567890123456800000]')).toBeNull();
    expect(refusalOf('[1234567890123456789012]')?.problem).toBe('inexact_number');
    expect(refusalOf('[100000000000000000000,1e300,0.1,1.7976931348623157e308,-0]')).toBeNull();
  });

  it('leaves text that is not JSON to the parse', () => {
    for (const text of ['{"a":', '{"a":1,"a', '"', '-', '[1-2]', '{"\\x":1,"\\x":2}', ']]{{']) {
      expect(() => checkJsonText(text)).not.toThrow(TypeError);
    }
  });
});
