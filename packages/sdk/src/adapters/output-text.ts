/** Largest output sent back to the row: the kernel keeps 16 KiB anyway. */
const OUTPUT_LIMIT_CHARS = 65_536;

/** What a tool returned, as the text committed to its Airlock row. */
export function outputText(value: unknown): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else {
    try {
      // A BigInt is written as its digits: JSON has no form for it.
      text =
        JSON.stringify(value, (_key, item) =>
          typeof item === 'bigint' ? item.toString() : item,
        ) ?? plainText(value);
    } catch {
      text = plainText(value);
    }
  }
  return text.length > OUTPUT_LIMIT_CHARS ? text.slice(0, OUTPUT_LIMIT_CHARS) : text;
}

/** A value JSON cannot carry (circular) as text, also one `String()` throws on (no prototype). */
function plainText(value: unknown): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** What a tool threw, as the failure committed to its row: also for a thrown `null` or `undefined`. */
export function thrownText(thrown: unknown): string {
  if (thrown instanceof Error) return thrown.message;
  return `the tool threw ${outputText(thrown)}`;
}
