import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AirlockError } from '../errors.js';
import { checkParsedInput, MAX_JSON_DEPTH } from './input-guard.js';
import { checkJsonText } from './json-text.js';

function codeOf(check: () => void): string | null {
  try {
    check();
    return null;
  } catch (error) {
    return error instanceof AirlockError ? error.code : 'thrown';
  }
}

/** The nesting depth of a JSON value, the value itself counting as 1 when it is an array or object. */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...children.map(depthOf));
}

describe('the input guard', () => {
  it('counts brackets inside strings (escaped quotes included) as text, not nesting', () => {
    const text = JSON.stringify({ a: '[[[[{{{{\\"[[[', b: ['"]]]]'] });
    expect(codeOf(() => checkJsonText(text))).toBeNull();
    expect(codeOf(() => checkJsonText(`${'['.repeat(MAX_JSON_DEPTH + 1)}`))).toBe('input_too_deep');
  });

  it('agrees with the parsed walk on every JSON value: refused exactly past the limit', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 6 }),
        fc.integer({ min: 55, max: 70 }),
        (value, wrap) => {
          let nested: unknown = value;
          for (let i = 0; i < wrap; i++) nested = i % 2 === 0 ? [nested] : { k: nested };
          const deep = depthOf(nested) > MAX_JSON_DEPTH;
          const text = JSON.stringify(nested);
          expect(codeOf(() => checkJsonText(text))).toBe(deep ? 'input_too_deep' : null);
          const parsed = codeOf(() => checkParsedInput(JSON.parse(text)));
          expect(parsed === 'input_too_deep').toBe(deep);
        },
      ),
    );
  });

  it('finds where strings end through any run of backslashes and quotes', () => {
    // Strings of backslashes, quotes and brackets only: every escape the skip over a string meets.
    const tricky = fc
      .array(fc.constantFrom('\\', '"', '[', ']', '{', '}', 'a'), { maxLength: 30 })
      .map((chars) => chars.join(''));
    fc.assert(
      fc.property(
        fc.array(tricky, { maxLength: 4 }),
        fc.integer({ min: 60, max: 68 }),
        (strings, wrap) => {
          let nested: unknown = strings;
          for (let i = 0; i < wrap; i++)
            nested = i % 2 === 0 ? [nested, strings[0] ?? ''] : { k: nested };
          const deep = depthOf(nested) > MAX_JSON_DEPTH;
          expect(codeOf(() => checkJsonText(JSON.stringify(nested)))).toBe(
            deep ? 'input_too_deep' : null,
          );
        },
      ),
    );
  });

  it('refuses a __proto__ key at any depth with its pointer, and keeps other keys', () => {
    const refused = (() => {
      try {
        checkParsedInput(JSON.parse('{"a":[{"b":{"__proto__":{"x":1}}}]}'));
      } catch (error) {
        return error as AirlockError;
      }
      return null;
    })();
    expect(refused?.code).toBe('invalid_input');
    expect(refused?.problems?.[0]?.pointer).toBe('/a/0/b/__proto__');
    expect(codeOf(() => checkParsedInput({ proto: 1, constructor_name: 'x' }))).toBeNull();
  });
});
