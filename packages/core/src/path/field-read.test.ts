import { describe, expect, it } from 'vitest';
import { fieldCodeOf, NAMED_FIELDS, OTHER_FIELD, readField } from './field-read.js';

describe('reading a field of a tool input', () => {
  it('reads each named field by its own name, and nothing else', () => {
    const input = Object.fromEntries(NAMED_FIELDS.map((name) => [name, `value of ${name}`]));
    for (const name of NAMED_FIELDS) {
      expect(readField(input, fieldCodeOf(name), name)).toBe(`value of ${name}`);
      expect(readField({}, fieldCodeOf(name), name)).toBeUndefined();
    }
  });

  it('reads any other key by the generic read', () => {
    expect(fieldCodeOf('new_string')).toBe(OTHER_FIELD);
    expect(readField({ new_string: 'x' }, OTHER_FIELD, 'new_string')).toBe('x');
    expect(readField({}, OTHER_FIELD, 'toString')).toBe(Object.prototype.toString);
  });
});
