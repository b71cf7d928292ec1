import { utf8Bytes } from './utf8.js';
import { toWellFormedText } from './well-formed.js';

/**
 * A text made ready for matching, once per call however many globs read it:
 * its well-formed UTF-16 form (lone surrogates as U+FFFD, which is what a
 * UTF-8 encoder writes for them) and, on first need, its UTF-8 bytes.
 */
export class PreparedText {
  /** The text as it was given. */
  readonly raw: string;
  #units: string | undefined;
  #bytes: Uint8Array | undefined;

  constructor(raw: string) {
    this.raw = raw;
  }

  /** The text with every lone surrogate replaced by U+FFFD (`raw` itself when well formed), made on first use. */
  get units(): string {
    this.#units ??= toWellFormedText(this.raw);
    return this.#units;
  }

  /** The UTF-8 bytes of the text, encoded on first use and kept. */
  get bytes(): Uint8Array {
    this.#bytes ??= utf8Bytes(this.units);
    return this.#bytes;
  }
}
