/**
 * A glob as a tiny NFA over bytes, for deciding language questions
 * (inclusion, which other globs accept alongside) rather than for matching.
 * Whether a pattern is a glob at all, and its bytes, come from core.
 */
import { compileGlob, utf8Bytes } from '@airlock/core';

/** Token of a compiled glob: a literal byte 0..255, or one of the two wildcards. */
export const STAR_TOKEN = -1;
/** `?`: exactly one byte. */
export const ANY_TOKEN = -2;
/** Matches no byte: the whole token list of a pattern core refuses, so its language is empty. */
const NEVER_TOKEN = -4;

/** A glob as a token array; position `tokens.length` is the accepting position. */
export interface ByteGlob {
  readonly source: string;
  readonly tokens: Int16Array;
}

/**
 * Compiles a glob's source (`*` any run of bytes, `?` one byte, every other
 * UTF-8 byte literal) into tokens. Never throws; a pattern core's
 * `compileGlob` refuses (a lone surrogate) matches nothing, as in the kernel.
 */
export function compileByteGlob(source: string): ByteGlob {
  let glob = compiled.get(source);
  if (!glob) {
    if (compiled.size >= 10_000) compiled.clear();
    glob = tokenize(source);
    compiled.set(source, glob);
  }
  return glob;
}

const compiled = new Map<string, ByteGlob>();

function tokenize(source: string): ByteGlob {
  const glob = compileGlob(source);
  if (!glob.ok) return { source, tokens: Int16Array.of(NEVER_TOKEN) };
  const bytes = utf8Bytes(glob.value.source);
  const tokens: number[] = [];
  for (const byte of bytes) {
    if (byte === 0x2a) {
      // Consecutive stars denote the same language as one star; keep one.
      if (tokens[tokens.length - 1] !== STAR_TOKEN) tokens.push(STAR_TOKEN);
    } else if (byte === 0x3f) {
      tokens.push(ANY_TOKEN);
    } else {
      tokens.push(byte);
    }
  }
  return { source, tokens: Int16Array.from(tokens) };
}

/** The literal bytes a glob mentions: the alphabet that can tell texts apart. */
export function literalBytes(glob: ByteGlob, into: Set<number>): void {
  for (const token of glob.tokens) if (token >= 0) into.add(token);
}

/**
 * Several globs laid end to end in one position space, so one sorted array
 * of positions is the subset-construction state of all of them at once.
 */
export class GlobSet {
  /** Token at each global position; `END` marks a glob's accepting position. */
  private readonly tokens: Int16Array;
  /** Which glob each global position belongs to. */
  private readonly owner: Int32Array;
  /** Global start position of each glob. */
  private readonly starts: Int32Array;

  constructor(readonly globs: readonly ByteGlob[]) {
    const total = globs.reduce((sum, glob) => sum + glob.tokens.length + 1, 0);
    this.tokens = new Int16Array(total);
    this.owner = new Int32Array(total);
    this.starts = new Int32Array(globs.length);
    let position = 0;
    globs.forEach((glob, index) => {
      this.starts[index] = position;
      this.tokens.set(glob.tokens, position);
      this.owner.fill(index, position, position + glob.tokens.length + 1);
      position += glob.tokens.length;
      this.tokens[position] = END_TOKEN;
      position += 1;
    });
  }

  /** The closed start state: every glob at its first position. */
  start(): number[] {
    return this.close(Array.from(this.starts));
  }

  /** The closed state after reading one byte (or the `other` symbol, -1). */
  step(state: readonly number[], symbol: number): number[] {
    const next: number[] = [];
    for (const position of state) {
      const token = this.tokens[position]!;
      if (token === STAR_TOKEN) next.push(position);
      else if (token === ANY_TOKEN || (token >= 0 && token === symbol)) next.push(position + 1);
    }
    return this.close(next);
  }

  /** Indices of the globs that accept in this state, ascending. */
  accepting(state: readonly number[]): number[] {
    const result: number[] = [];
    for (const position of state) {
      if (this.tokens[position] === END_TOKEN) result.push(this.owner[position]!);
    }
    return result;
  }

  /** Adds the positions after each star (a star may match nothing), sorts, dedupes. */
  private close(positions: number[]): number[] {
    const seen = new Set<number>();
    const stack = [...positions];
    while (stack.length > 0) {
      const position = stack.pop()!;
      if (seen.has(position)) continue;
      seen.add(position);
      if (this.tokens[position] === STAR_TOKEN) stack.push(position + 1);
    }
    return [...seen].sort((a, b) => a - b);
  }
}

const END_TOKEN = -3;
