/**
 * The dense transition table of an Aho–Corasick automaton over UTF-8 bytes,
 * with two virtual symbols, the start and the end of the text, so that
 * anchored literals (`^git status`, `.env$`) are ordinary literals of the
 * same table. `LiteralAutomaton` walks it.
 */

import { utf8Bytes } from '../glob/utf8.js';

/** A literal to look for, optionally anchored at the start and/or the end of the text. */
export interface AnchoredLiteral {
  readonly text: string;
  readonly atStart: boolean;
  readonly atEnd: boolean;
}

/** The class of every byte no literal holds. */
export const OTHER = 0;
/** The virtual symbol read before the text's first byte. */
export const START = 1;
/** The virtual symbol read after the text's last byte. */
export const END = 2;
const FIRST_BYTE_CLASS = 3;

/**
 * Past this many table cells (4 bytes each) the table is not built and the
 * caller runs every glob instead. 6.5 million covers a whole 64 KiB envelope
 * of literal text over printable ASCII.
 */
const MAX_TABLE_CELLS = 6_500_000;

/** Identity key of an anchored literal, for deduplication. */
export function literalKey(literal: AnchoredLiteral): string {
  return `${literal.atStart ? '^' : '-'}${literal.atEnd ? '$' : '-'}${literal.text}`;
}

export interface AutomatonTable {
  /** Columns per state: the three fixed symbols plus one per distinct byte the literals hold. */
  readonly classes: number;
  /** The column of each byte value (OTHER for a byte no literal holds). */
  readonly byteClass: Uint16Array;
  /**
   * next[state * classes + class] is the next state times classes, bitwise
   * negated when that state or its failure chain spells a literal (the root
   * never does, so a negative cell always means output).
   */
  readonly next: Int32Array;
  /** The literal a state spells, or -1, by state number. */
  readonly literalAt: Int32Array;
  /** The nearest shorter state on the failure chain that spells a literal (times classes), or -1. */
  readonly outputLink: Int32Array;
  /** 1 for a state whose output chain spells a literal whose last end is wanted, by state number. */
  readonly tracksLast: Uint8Array;
  /** Each literal's length in UTF-8 bytes (anchors take none). */
  readonly literalBytes: Int32Array;
  /** The longest literal, in UTF-8 bytes. */
  readonly longestBytes: number;
}

/**
 * The table for distinct literals (literal i reports as i), or null when it
 * would pass the size bound. Literals are read as UTF-8 (globs holding a
 * lone surrogate are refused when they compile, so every literal has one).
 */
export function buildAutomatonTable(
  literals: readonly AnchoredLiteral[],
  lastWanted: (literal: number) => boolean,
): AutomatonTable | null {
  const byteClass = new Uint16Array(256);
  let classes = FIRST_BYTE_CLASS;
  const literalBytes = new Int32Array(literals.length);
  const sequences = literals.map((literal, index) => {
    const bytes = utf8Bytes(literal.text);
    literalBytes[index] = bytes.length;
    const sequence: number[] = [];
    if (literal.atStart) sequence.push(START);
    for (const byte of bytes) {
      if (byteClass[byte] === 0) byteClass[byte] = classes++;
      sequence.push(byteClass[byte]!);
    }
    if (literal.atEnd) sequence.push(END);
    if (sequence.length === 0)
      throw new RangeError('an empty literal occurs everywhere; leave it out');
    return sequence;
  });
  const children: Map<number, number>[] = [new Map()];
  const literalAt: number[] = [-1];
  sequences.forEach((sequence, literal) => {
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
  const outputState = new Int32Array(states).fill(-1);
  const hasOutput = new Uint8Array(states);
  const tracksLast = new Uint8Array(states);
  // Breadth first, so a state's failure state (shallower) is settled before it.
  for (const state of order) {
    const failure = fail[state]!;
    const chained = literalAt[failure]! >= 0 ? failure : outputState[failure]!;
    outputState[state] = chained;
    const literal = literalAt[state]!;
    hasOutput[state] = literal >= 0 || chained >= 0 ? 1 : 0;
    const wanted =
      (literal >= 0 && lastWanted(literal)) || (chained >= 0 && tracksLast[chained] === 1);
    tracksLast[state] = wanted ? 1 : 0;
  }
  const outputLink = Int32Array.from(outputState, (state) => (state >= 0 ? state * classes : -1));
  for (let cell = 0; cell < next.length; cell++) {
    const target = next[cell]!;
    next[cell] = hasOutput[target / classes] === 1 ? ~target : target;
  }
  return {
    classes,
    byteClass,
    next,
    literalAt: Int32Array.from(literalAt),
    outputLink,
    tracksLast,
    literalBytes,
    longestBytes: literalBytes.reduce((longest, bytes) => Math.max(longest, bytes), 0),
  };
}
