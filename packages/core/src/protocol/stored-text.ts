import type { z } from 'zod';
import { textIsWellFormed, toWellFormedText } from '../glob/well-formed.js';

/** True when a store keeps the text as sent: no NUL (PostgreSQL refuses it), no lone surrogate. */
export function isStorableText(text: string): boolean {
  return textIsWellFormed(text) && !text.includes('\u0000');
}

/**
 * Text a person writes that is stored and shown as text (a name, a label, a
 * deny reason): refused with a lone surrogate, which would be stored as
 * U+FFFD, so that what is shown is what was sent, and with NUL, which
 * PostgreSQL cannot keep in text, so that every store answers alike.
 */
export function personText(schema: z.ZodString): z.ZodString {
  return schema.refine(isStorableText, {
    message:
      'the text holds NUL (U+0000) or a lone surrogate (no Unicode text); send it as UTF-8 text without NUL',
  });
}

/** A control character (C0, DEL, C1): a tab, a line break, an escape. */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * A credential's label: the name a member is shown under, on one line, on
 * decisions, the inbox, the CLI's tables and Slack and email notices. As
 * {@link personText}, and refused with a control character, with which a
 * name could fake a table's column or a notice's next line ("Ana\nApproved
 * by Bo"). Characters that change how text reads without showing (U+202E)
 * are kept, and shown as marks wherever a label is shown.
 */
export function labelText(schema: z.ZodString): z.ZodString {
  return personText(schema).refine((text) => !CONTROL_CHARACTER.test(text), {
    message:
      'a label is one line of text: it holds a control character (a tab, a line break, an escape)',
  });
}

/**
 * A name or an id a model or an agent gives, kept as text (a tool's name, a
 * call's id): refused with NUL (PostgreSQL cannot store it) or a lone
 * surrogate (each store would keep it as U+FFFD, in its own way, and the
 * name would name another thing), as ids are.
 */
export function storableName(
  schema: z.ZodString,
  message = 'the name holds NUL (U+0000) or a lone surrogate, which no store keeps as sent',
): z.ZodString {
  return schema.refine(isStorableText, { message });
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
