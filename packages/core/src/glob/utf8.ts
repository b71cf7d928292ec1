const encoder = new TextEncoder();

/** The UTF-8 bytes of a string (a lone surrogate becomes U+FFFD, as in any UTF-8 encoder). */
export function utf8Bytes(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Number of UTF-8 bytes the string encodes to, without allocating. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** True when every UTF-16 unit of the string is ASCII. */
export function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) return false;
  }
  return true;
}

/** True when the string has a UTF-8 form: no lone surrogate. */
export function isWellFormed(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      if (!isLowSurrogate(text.charCodeAt(i + 1))) return false;
      i++;
    } else if (isLowSurrogate(unit)) return false;
  }
  return true;
}

/**
 * Cuts a string to at most `maxBytes` UTF-8 bytes without splitting a
 * character: the result is the longest whole-character prefix that fits.
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  if (text.length <= maxBytes / 3) return text;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    let width: number;
    let units = 1;
    if (unit < 0x80) width = 1;
    else if (unit < 0x800) width = 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      width = 4;
      units = 2;
    } else width = 3;
    if (bytes + width > maxBytes) return text.slice(0, i);
    bytes += width;
    i += units - 1;
  }
  return text;
}
