import { createScanner } from 'jsonc-parser';

// jsonc-parser's SyntaxKind and ScanError are ambient const enums, which isolated modules cannot read.
const STRING_LITERAL = 10;
const END_OF_FILE = 17;
const UNEXPECTED_END_OF_STRING = 2;

/** The text of a string literal between its quotes, as offsets. */
export interface StringContent {
  /** Offset just after the opening quote. */
  readonly start: number;
  /** Offset of the closing quote, or the end of the line for a string still being typed. */
  readonly end: number;
}

/**
 * The content of the JSON string literal an offset is in (after its opening
 * quote, up to its closing one), or undefined outside every string. A string
 * still being typed has no closing quote and ends at its line's end.
 */
export function stringContentAt(text: string, offset: number): StringContent | undefined {
  const scanner = createScanner(text, false);
  for (let kind: number = scanner.scan(); kind !== END_OF_FILE; kind = scanner.scan()) {
    const start = scanner.getTokenOffset();
    if (start >= offset) return undefined;
    if (kind !== STRING_LITERAL) continue;
    const length = scanner.getTokenLength();
    const closed = scanner.getTokenError() !== UNEXPECTED_END_OF_STRING;
    const end = closed ? start + length - 1 : start + length;
    if (offset <= end) return { start: start + 1, end };
  }
  return undefined;
}
