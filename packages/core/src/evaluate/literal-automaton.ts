/**
 * An Aho–Corasick automaton over UTF-16 units, compiled to a dense table, that
 * reports in one pass which of its literals occur in a text. A literal may be
 * anchored at the start or the end of the text: the scan reads a virtual
 * start symbol before the text and an end symbol after it, so `^git status`
 * and `.env$` are ordinary literals of the same automaton.
 */

/** A literal to look for, optionally anchored at the start and/or the end of the text. */
export interface AnchoredLiteral {
  readonly text: string;
  readonly atStart: boolean;
  readonly atEnd: boolean;
}

const OTHER = 0;
const START = 1;
const END = 2;
const FIRST_UNIT_CLASS = 3;

/** Texts this long or longer are read by two walks at once (see `scan`). */
const TWO_WALKS_MIN_UNITS = 256;
/** How many of the second walk's occurrences are kept before the scan falls back to one walk. */
const PENDING_LIMIT = 4096;
const OVERFLOWED = -1;

/**
 * Past this many table cells (4 bytes each) the automaton is not built and the
 * caller runs every glob instead. 6.5 million covers a whole 64 KiB envelope of
 * literal text over printable ASCII; only patterns with hundreds of distinct
 * non-ASCII characters go past it.
 */
const MAX_TABLE_CELLS = 6_500_000;

/** Identity key of an anchored literal, for deduplication. */
export function literalKey(literal: AnchoredLiteral): string {
  return `${literal.atStart ? '^' : '-'}${literal.atEnd ? '$' : '-'}${literal.text}`;
}

/**
 * The automaton itself: build it once from distinct literals, then `scan`
 * texts; after each scan `found`, `firstEnd` and `lastEnd` describe what
 * occurred. Its scratch state makes it single-use at a time (evaluation is
 * synchronous, so one policy may share it across calls).
 */
export class LiteralAutomaton {
  readonly literalCount: number;
  /**
   * True when a literal holds U+FFFD, which a lone surrogate of the text
   * reads as; only then must the scan read the well-formed text. Otherwise
   * a lone surrogate matches no literal either way, and the raw text will do.
   */
  readonly needsWellFormedText: boolean;
  readonly #classes: number;
  readonly #ascii: Uint16Array;
  readonly #wide: Map<number, number>;
  /**
   * The transitions: next[state * classes + class] is the next state times
   * classes, bitwise negated when that state or its failure chain spells a
   * literal (the root never does, so a negative cell always means output).
   */
  readonly #next: Int32Array;
  /** The literal a state spells, or -1, by state number. */
  readonly #literalAt: Int32Array;
  /** The nearest shorter state on the failure chain that spells a literal (times classes), or -1. */
  readonly #outputLink: Int32Array;
  readonly #seen: Int32Array;
  readonly #visitedEpoch: Int32Array;
  readonly #lastVisit: Int32Array;
  readonly #visited: Int32Array;
  /** The second walk's occurrences, in order: their states and where they end. */
  #pendingStates: Int32Array | null = null;
  #pendingEnds: Int32Array | null = null;
  /** The longest literal, in UTF-16 units (anchors take none). */
  readonly #longestUnits: number;
  #visitedCount = 0;
  #count = 0;
  #epoch = 0;
  /** After a scan: the literals found, in the order first met. */
  readonly found: Int32Array;
  /** After a scan: where each found literal first ends. */
  readonly firstEnd: Int32Array;
  /** After a scan that tracked it: where each found literal last ends. */
  readonly lastEnd: Int32Array;

  private constructor(parts: {
    classes: number;
    ascii: Uint16Array;
    wide: Map<number, number>;
    next: Int32Array;
    literalAt: Int32Array;
    outputLink: Int32Array;
    literalCount: number;
    longestUnits: number;
  }) {
    this.#longestUnits = parts.longestUnits;
    this.#classes = parts.classes;
    this.#ascii = parts.ascii;
    this.#wide = parts.wide;
    this.#next = parts.next;
    this.#literalAt = parts.literalAt;
    this.#outputLink = parts.outputLink;
    this.literalCount = parts.literalCount;
    this.needsWellFormedText = parts.wide.has(0xfffd);
    const states = parts.literalAt.length;
    this.#seen = new Int32Array(states);
    this.#visitedEpoch = new Int32Array(states);
    this.#lastVisit = new Int32Array(states);
    this.#visited = new Int32Array(states);
    this.found = new Int32Array(parts.literalCount);
    this.firstEnd = new Int32Array(parts.literalCount);
    this.lastEnd = new Int32Array(parts.literalCount);
  }

  /**
   * Builds the automaton for distinct literals (literal i reports as i), or
   * returns null when its table would pass the size bound.
   */
  static build(literals: readonly AnchoredLiteral[]): LiteralAutomaton | null {
    const ascii = new Uint16Array(128);
    const wide = new Map<number, number>();
    let classes = FIRST_UNIT_CLASS;
    const classOf = (unit: number): number => {
      if (unit < 128) {
        if (ascii[unit] === 0) ascii[unit] = classes++;
        return ascii[unit]!;
      }
      let known = wide.get(unit);
      if (known === undefined) {
        known = classes++;
        wide.set(unit, known);
      }
      return known;
    };
    const sequences = literals.map((literal) => {
      const sequence: number[] = [];
      if (literal.atStart) sequence.push(START);
      for (let i = 0; i < literal.text.length; i++)
        sequence.push(classOf(literal.text.charCodeAt(i)));
      if (literal.atEnd) sequence.push(END);
      return sequence;
    });
    const children: Map<number, number>[] = [new Map()];
    const literalAt: number[] = [-1];
    sequences.forEach((sequence, literal) => {
      if (sequence.length === 0)
        throw new RangeError('an empty literal occurs everywhere; leave it out');
      let state = 0;
      for (const symbol of sequence) {
        let child = children[state]!.get(symbol);
        if (child === undefined) {
          child = children.length;
          children.push(new Map());
          literalAt.push(-1);
          children[state]!.set(symbol, child);
        }
        state = child;
      }
      literalAt[state] = literal;
    });
    const states = children.length;
    if (states * classes > MAX_TABLE_CELLS) return null;
    const next = new Int32Array(states * classes);
    const fail = new Int32Array(states);
    const outputLink = new Int32Array(states).fill(-1);
    const hasOutput = new Uint8Array(states);
    const order: number[] = [];
    for (const [symbol, child] of children[0]!) {
      next[symbol] = child * classes;
      order.push(child);
    }
    for (let head = 0; head < order.length; head++) {
      const state = order[head]!;
      const failure = fail[state]!;
      // A state goes where its failure state goes, except along its own children.
      next.copyWithin(state * classes, failure * classes, failure * classes + classes);
      for (const [symbol, child] of children[state]!) {
        next[state * classes + symbol] = child * classes;
        fail[child] = next[failure * classes + symbol]! / classes;
        order.push(child);
      }
    }
    for (const state of order) {
      const failure = fail[state]!;
      outputLink[state] = literalAt[failure]! >= 0 ? failure : outputLink[failure]!;
      hasOutput[state] = literalAt[state]! >= 0 || outputLink[state]! >= 0 ? 1 : 0;
    }
    const links = new Int32Array(states).fill(-1);
    for (let state = 0; state < states; state++) {
      links[state] = outputLink[state]! >= 0 ? outputLink[state]! * classes : -1;
    }
    for (let cell = 0; cell < next.length; cell++) {
      const target = next[cell]!;
      next[cell] = hasOutput[target / classes] === 1 ? ~target : target;
    }
    return new LiteralAutomaton({
      classes,
      ascii,
      wide,
      next,
      literalAt: Int32Array.from(literalAt),
      outputLink: links,
      literalCount: literals.length,
      longestUnits: literals.reduce(
        (longest, literal) => Math.max(longest, literal.text.length),
        0,
      ),
    });
  }

  /**
   * Scans `text` once and lists in `found` the index of every literal that
   * occurs in it (each once), returning how many; `firstEnd` then holds, for
   * each found literal, where its first occurrence ends (in UTF-16 units of
   * the text, the anchors taking no room) and, with `trackLast`, `lastEnd`
   * where its last one ends. Linear in the text plus the literals reported.
   *
   * A long text is read by two walks at once, one over each half (the second
   * starting early by the longest literal, so no occurrence falls between):
   * a table walk waits on each lookup before the next, and two independent
   * walks let the processor overlap those waits.
   */
  scan(text: string, trackLast: boolean): number {
    const length = text.length;
    const overlap = this.#longestUnits - 1;
    if (length >= TWO_WALKS_MIN_UNITS && overlap * 4 <= length) {
      const last = this.#scanTwoWalks(text, this.#begin(trackLast), overlap, trackLast);
      if (last !== OVERFLOWED) return this.#finish(last, length, trackLast);
      // So many occurrences that the second walk's list overflowed: read the text again, in one walk.
    }
    const last = this.#walk(text, this.#begin(trackLast), 0, length, trackLast);
    return this.#finish(last, length, trackLast);
  }

  /** Starts a scan (a new epoch, nothing found) and reads the start symbol; returns the state. */
  #begin(trackLast: boolean): number {
    if (this.#epoch === 0x7fffffff) {
      this.#seen.fill(0);
      this.#visitedEpoch.fill(0);
      this.#epoch = 0;
    }
    this.#epoch++;
    this.#count = 0;
    this.#visitedCount = 0;
    const step = this.#next[START]!;
    if (step >= 0) return step;
    this.#hit(~step, 0, trackLast);
    return ~step;
  }

  /** Reads the end symbol after the walk that read the text's last unit, and settles `lastEnd`. */
  #finish(step: number, length: number, trackLast: boolean): number {
    const end = this.#next[step + END]!;
    if (end < 0) this.#hit(~end, length, trackLast);
    if (trackLast) this.#spreadLastEnds();
    return this.#count;
  }

  /** One walk over text[from, to) from `step`; returns where it ends. */
  #walk(text: string, step: number, from: number, to: number, trackLast: boolean): number {
    const next = this.#next;
    const ascii = this.#ascii;
    for (let i = from; i < to; i++) {
      const unit = text.charCodeAt(i);
      step = next[step + (unit < 128 ? ascii[unit]! : this.#wideClass(unit))]!;
      if (step < 0) {
        step = ~step;
        this.#hit(step, i + 1, trackLast);
      }
    }
    return step;
  }

  /**
   * Two walks at once: the first over [0, middle) from `step`, the second
   * from the root over [middle - overlap, length), which finds every
   * occurrence ending after `middle` (each starts at or after its first
   * unit). The second walk's occurrences are kept in order and reported
   * after the first walk's, so positions reach `#hit` ascending. Returns the
   * second walk's last state, or OVERFLOWED when it met too many to keep.
   */
  #scanTwoWalks(text: string, step: number, overlap: number, trackLast: boolean): number {
    const next = this.#next;
    const ascii = this.#ascii;
    const length = text.length;
    const middle = (length + overlap + 1) >> 1;
    const secondFrom = middle - overlap;
    const together = length - secondFrom;
    this.#pendingStates ??= new Int32Array(PENDING_LIMIT);
    this.#pendingEnds ??= new Int32Array(PENDING_LIMIT);
    const pendingStates = this.#pendingStates;
    const pendingEnds = this.#pendingEnds;
    let pending = 0;
    let first = step;
    let second = 0;
    for (let i = 0, j = secondFrom; i < together; i++, j++) {
      const u = text.charCodeAt(i);
      const v = text.charCodeAt(j);
      first = next[first + (u < 128 ? ascii[u]! : this.#wideClass(u))]!;
      second = next[second + (v < 128 ? ascii[v]! : this.#wideClass(v))]!;
      if ((first | second) >= 0) continue;
      if (first < 0) {
        first = ~first;
        this.#hit(first, i + 1, trackLast);
      }
      if (second < 0) {
        second = ~second;
        if (j + 1 > middle) {
          if (pending === PENDING_LIMIT) return OVERFLOWED;
          pendingStates[pending] = second;
          pendingEnds[pending++] = j + 1;
        }
      }
    }
    this.#walk(text, first, together, middle, trackLast);
    for (let p = 0; p < pending; p++) this.#hit(pendingStates[p]!, pendingEnds[p]!, trackLast);
    return second;
  }

  #wideClass(unit: number): number {
    return this.#wide.size === 0 ? OTHER : (this.#wide.get(unit) ?? OTHER);
  }

  /** A state with output met at `position` (premultiplied by the class count). */
  #hit(premultiplied: number, position: number, trackLast: boolean): void {
    const state = premultiplied / this.#classes;
    if (trackLast) {
      if (this.#visitedEpoch[state] === this.#epoch) this.#lastVisit[state] = position;
      else this.#visit(premultiplied, position, true);
    } else if (this.#seen[state] !== this.#epoch) this.#visit(premultiplied, position, false);
  }

  /** A state with output met for the first time in this scan: reports the literals of its chain not yet seen. */
  #visit(premultiplied: number, position: number, trackLast: boolean): void {
    const classes = this.#classes;
    const seen = this.#seen;
    const epoch = this.#epoch;
    const state = premultiplied / classes;
    if (trackLast) {
      this.#visitedEpoch[state] = epoch;
      this.#lastVisit[state] = position;
      this.#visited[this.#visitedCount++] = state;
    }
    let at = premultiplied;
    while (at >= 0) {
      const index = at / classes;
      if (seen[index] === epoch) break;
      seen[index] = epoch;
      const literal = this.#literalAt[index]!;
      if (literal >= 0) {
        this.found[this.#count++] = literal;
        this.firstEnd[literal] = position;
        this.lastEnd[literal] = position;
      }
      at = this.#outputLink[index]!;
    }
  }

  /** Gives each found literal the last position of any visited state whose chain spells it. */
  #spreadLastEnds(): void {
    const classes = this.#classes;
    for (let v = 0; v < this.#visitedCount; v++) {
      const state = this.#visited[v]!;
      const position = this.#lastVisit[state]!;
      let at = state * classes;
      while (at >= 0) {
        const index = at / classes;
        const literal = this.#literalAt[index]!;
        if (literal >= 0 && this.lastEnd[literal]! < position) this.lastEnd[literal] = position;
        at = this.#outputLink[index]!;
      }
    }
  }
}
