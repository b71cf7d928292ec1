/**
 * The line breaks of a settings file, kept across install and uninstall: a
 * file written on Windows, or by an editor set to CRLF, is read with LF
 * breaks (the TOML block is found line by line) and written back with CRLF,
 * so the user's diff shows Airlock's lines alone.
 */

/** Whether most of a text's line breaks are CRLF. */
function usesCrlf(text: string): boolean {
  const crlf = text.match(/\r\n/g)?.length ?? 0;
  const lf = text.match(/\n/g)?.length ?? 0;
  return crlf > 0 && crlf * 2 > lf;
}

/** A text with its CRLF breaks read as LF. */
export function withLfBreaks(text: string): string {
  return text.replace(/\r\n/g, '\n');
}

/** `text` (LF breaks) with the breaks of `original`: CRLF when most of the original's are. */
export function withBreaksOf(original: string | null, text: string): string {
  return original !== null && usesCrlf(original) ? text.replace(/\r?\n/g, '\r\n') : text;
}
