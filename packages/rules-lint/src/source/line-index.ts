/** A 1-based line and column; the column counts UTF-16 code units, as editors do. */
export interface LineColumn {
  readonly line: number;
  readonly column: number;
}

/** Maps offsets in a text to lines and columns (line breaks: LF, CRLF, CR). */
export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(private readonly text: string) {
    for (let index = 0; index < text.length; index++) {
      const unit = text.charCodeAt(index);
      if (unit === 0x0d && text.charCodeAt(index + 1) === 0x0a) continue;
      if (unit === 0x0a || unit === 0x0d) this.starts.push(index + 1);
    }
  }

  /** The line and column of an offset (clamped to the text). */
  position(offset: number): LineColumn {
    const clamped = Math.max(0, Math.min(offset, this.text.length));
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.starts[middle]! <= clamped) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: clamped - this.starts[low]! + 1 };
  }

  /** The text of a 1-based line, without its line break. */
  lineText(line: number): string {
    const start = this.starts[line - 1];
    if (start === undefined) return '';
    const next = this.starts[line];
    return this.text.slice(start, next ?? this.text.length).replace(/\r?\n$|\r$/, '');
  }
}
