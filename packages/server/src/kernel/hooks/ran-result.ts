/*
 * How a hooked call's row keeps what the agent reports it returned: one text part, written when
 * the report lands and read back when the same call is asked about again (call-binding.ts).
 */

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
