import type { z } from 'zod';
import { toWellFormedText } from '../glob/well-formed.js';

/** A UTF-16 surrogate with no partner: text with no UTF-8 form. */
export const LONE_SURROGATE =
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** U+0000, or a lone surrogate. */
export const NOT_STORABLE = new RegExp(`\\u0000|${LONE_SURROGATE.source}`);

/**
 * A name or an id a model or an agent gives, kept as text (a tool's name, a
 * call's id): refused with NUL (PostgreSQL cannot store it) or a lone
 * surrogate (each store would keep it as U+FFFD, in its own way, and the
 * name would name another thing), as ids are.
 */
export function storableName(schema: z.ZodString): z.ZodString {
  return schema.refine((text) => !NOT_STORABLE.test(text), {
    message: 'the name holds NUL (U+0000) or a lone surrogate, which no store keeps as sent',
  });
}

/**
 * Text as the kernel keeps it in a text column: each lone surrogate (no
 * UTF-8 form; each store would keep it as U+FFFD in its own way) and each
 * NUL (PostgreSQL refuses it in text) as U+FFFD, so that SQLite and
 * PostgreSQL keep, and answer with, the same text.
 */
export function asKeptText(text: string): string {
  const wellFormed = toWellFormedText(text);
  return wellFormed.includes('\u0000') ? wellFormed.replaceAll('\u0000', '\uFFFD') : wellFormed;
}

/**
 * Text a model, a tool or an executor writes that the kernel keeps as text
 * (a final answer, a hooked tool's output, an error's detail): taken as
 * {@link asKeptText} makes it. Refusing it instead would lose what a tool
 * that already ran returned, or leave its row without an outcome.
 */
export function keptText(schema: z.ZodString): z.ZodString {
  return schema.overwrite(asKeptText);
}
