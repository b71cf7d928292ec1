/*
 * Numbers a JSON text carries that a reader would not take as written. JSON
 * puts no bound on a number's digits, but every JavaScript reader (the kernel,
 * a browser, most tools) holds a number as a double: an integer past 2^53 comes
 * back as other digits, and a number past the largest double as Infinity. The
 * kernel refuses such a token in a request (`invalid_json`, `inexact_number`);
 * the linter flags it in a file, since a tool that parses the file first would
 * change the number without a word.
 */

/** The digits of 2^53 - 1, the largest integer every JSON reader holds exactly. */
const SAFE_DIGITS = String(Number.MAX_SAFE_INTEGER);

/** The integer digits the kernel writes for a whole number (JSON.stringify's, exponent spelled out). */
function writtenDigits(value: number): string {
  const written = String(Math.abs(value));
  const at = written.indexOf('e+');
  if (at === -1) return written;
  // `1.2345e+21`: the mantissa's digits, then zeros for the exponent its fraction does not cover.
  const [whole, fraction = ''] = written.slice(0, at).split('.');
  return `${whole}${fraction}${'0'.repeat(Number(written.slice(at + 2)) - fraction.length)}`;
}

/**
 * The reason a number token would not be read as written, or null: an integer
 * past 2^53 that the kernel would read, show and pass on as other digits
 * (`12345678901234567890` as `12345678901234567000`), or any number past the
 * largest double (read as Infinity). A token with a fraction or an exponent
 * is a floating-point number, read as one.
 */
export function inexactNumber(token: string): string | null {
  const integer = !/[.eE]/.test(token);
  const negative = token.charCodeAt(0) === 0x2d;
  const length = token.length - (negative ? 1 : 0);
  // A safe integer is exact: up to 15 digits, or 16 up to 2^53 - 1 (same length: compared as text).
  if (integer && (length <= 15 || (length === 16 && token.slice(-16) <= SAFE_DIGITS))) return null;
  const value = Number(token);
  // Not a number token JSON.parse reads: the parse refuses it.
  if (Number.isNaN(value)) return null;
  if (!Number.isFinite(value)) {
    const shown = token.length > 40 ? `${token.slice(0, 40)}…` : token;
    return `${shown} is past the largest number JSON carries here (it would be read as ${value})`;
  }
  const digits = negative ? token.slice(1) : token;
  // A leading zero is not JSON: the parse refuses it.
  if (digits.charCodeAt(0) === 0x30) return null;
  if (integer && writtenDigits(value) !== digits) {
    const read = `${negative ? '-' : ''}${writtenDigits(value)}`;
    return `${token} is an integer past 2^53 that would be read as ${read}; send it as a string`;
  }
  return null;
}
