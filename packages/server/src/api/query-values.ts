import type { z } from 'zod';
import { AirlockError } from '../errors.js';

/** A number in a query string: plain decimal digits, no sign, space, exponent, radix or leading zero. */
export const DECIMAL_DIGITS = /^(0|[1-9][0-9]*)$/;

/** The wrappers a field's schema may sit in (a default, an optional). */
const WRAPPERS = new Set(['default', 'optional', 'nullable', 'prefault', 'readonly']);

/** Whether a field's schema, under its wrappers, takes a number. */
function takesNumber(schema: z.ZodType): boolean {
  let def = schema._zod.def as { type: string; innerType?: z.ZodType };
  while (WRAPPERS.has(def.type) && def.innerType) {
    def = def.innerType._zod.def as { type: string; innerType?: z.ZodType };
  }
  return def.type === 'number';
}

/** The names of an input shape's fields that take a number: those a query string carries as digits. */
export function numberFields(shape: Readonly<Record<string, z.ZodType>>): ReadonlySet<string> {
  return new Set(Object.keys(shape).filter((name) => takesNumber(shape[name]!)));
}

/**
 * A number read from a query string: plain decimal digits only, where
 * `Number()` would also read `0x3`, `1e2`, ` 3` and an empty value (as 0).
 * The field's own schema then checks its range (a safe integer, its bounds).
 * @throws AirlockError invalid_input naming the field.
 */
export function decimalQueryNumber(name: string, value: string): number {
  if (DECIMAL_DIGITS.test(value)) return Number(value);
  const message = `${name} is a number written in plain decimal digits (like 100), not ${JSON.stringify(value)}`;
  throw new AirlockError('invalid_input', `/${name}: ${message}`, [
    { code: 'invalid_type', pointer: `/${name}`, message },
  ]);
}
