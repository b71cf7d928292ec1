import { HOOKED_OUTPUT_MAX_BYTES, truncateUtf8 } from '@airlock/core';

/*
 * How a hooked call's row keeps what the agent reports it returned: one text part, written when
 * the report lands and read back when the same call is asked about again (call-binding.ts).
 */

/** Ends an output cut to fit its row, so that the row does not read as all the call printed. */
const CUT_NOTE = `\n[Airlock: the output was longer than ${HOOKED_OUTPUT_MAX_BYTES} bytes; only its start is kept]`;

/**
 * A call's output as its row keeps it: whole when it fits in
 * `HOOKED_OUTPUT_MAX_BYTES` of UTF-8, else its start and a note saying it was cut.
 */
export function keptOutput(output: string): string {
  const kept = truncateUtf8(output, HOOKED_OUTPUT_MAX_BYTES);
  if (kept.length === output.length) return output;
  return `${truncateUtf8(output, HOOKED_OUTPUT_MAX_BYTES - Buffer.byteLength(CUT_NOTE))}${CUT_NOTE}`;
}

/** A hooked call's output as its row keeps it: one text part. */
export function ranResult(output: string): string {
  return JSON.stringify({ content: [{ type: 'text', text: output }] });
}

/** The text a hooked call's row holds as what it returned (see ranResult), else its JSON. */
export function ranOutput(result: string | null): string {
  if (result === null) return '';
  const parsed = JSON.parse(result) as { content?: { type?: string; text?: unknown }[] } | null;
  const first = parsed?.content?.[0];
  if (parsed?.content?.length === 1 && first?.type === 'text' && typeof first.text === 'string') {
    return first.text;
  }
  return result;
}
