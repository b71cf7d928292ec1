import { PreparedText } from '../glob/prepared-text.js';
import { fieldCodeOf, OTHER_FIELD } from '../path/field-read.js';
import {
  sourceAtOwnKey,
  sourceText,
  type TextSource,
  textAtPath,
} from '../path/tool-input-path.js';
import type { CompiledRule } from '../rules/compiled-rule.js';
import { type AnchoredLiteral, literalKey } from './automaton-table.js';
import { LiteralAutomaton } from './literal-automaton.js';
import { type MatchShape, requiredLiterals } from './rule-literals.js';

/** Up to this many globs in a group run directly, without an automaton. */
const SMALL_GROUP = 2;

const RUN = 0;
const DECISIVE = 1;
const ORDERED = 2;
const AFTER_PREFIX = 3;
const BEFORE_SUFFIX = 4;

/**
 * The rules of one tool that read the same path, indexed so that a call
 * reads its text once: one automaton pass finds which required literals
 * occur, and only the rules whose literals all occur are looked at; of
 * those, a glob runs only when its literals do not already decide it.
 *
 * Each rule waits on one trigger literal, its longest (the least likely to
 * occur), and checks its other literals only when the trigger occurs: a
 * fragment that many rules share (`curl `, `sudo `) costs nothing by itself.
 */
export class PathGroup {
  readonly path: readonly string[];
  /** The path's one key, when it has only one (read without the general walk). */
  readonly #key: string | null;
  /** How the one key is read (see `fieldCodeOf`). */
  readonly #fieldCode: number;
  /** Rules that match whenever there is text: no glob, or a bare `*`. */
  readonly #anyText: readonly number[];
  /** Rules that must always run their glob: no literal to look for, or no automaton. */
  readonly #alwaysRun: readonly CompiledRule[];
  readonly #automaton: LiteralAutomaton | null;
  /** For each literal, the slots of the rules it triggers. */
  readonly #slotsByTrigger: readonly Int32Array[];
  readonly #slotRules: readonly CompiledRule[];
  /** A slot's other literals: others[othersStart[slot] .. othersStart[slot + 1]). */
  readonly #othersStart: Int32Array;
  readonly #others: Int32Array;
  /** How each slot is decided once its literals occur (RUN, DECISIVE, ORDERED, ...). */
  readonly #slotKinds: Uint8Array;
  /** The literal (or first literal) a positional slot reads, and the second one or a length in bytes. */
  readonly #slotFirst: Int32Array;
  readonly #slotSecond: Int32Array;
  /** The scan (by epoch) in which each literal was last found. */
  readonly #literalEpochs: Int32Array;
  #epoch = 0;

  constructor(path: readonly string[], rules: readonly CompiledRule[]) {
    this.path = path;
    this.#key = path.length === 1 ? path[0]! : null;
    this.#fieldCode = this.#key === null ? OTHER_FIELD : fieldCodeOf(this.#key);
    const anyText: number[] = [];
    const alwaysRun: CompiledRule[] = [];
    const literals: AnchoredLiteral[] = [];
    const literalIds = new Map<string, number>();
    const slotLiterals: number[][] = [];
    const slotRules: CompiledRule[] = [];
    const slotShapes: MatchShape[] = [];
    for (const rule of rules) {
      if (rule.match === null) {
        anyText.push(rule.index);
        continue;
      }
      const required = requiredLiterals(rule.match);
      if (required.literals.length === 0) {
        if (required.shape.kind === 'decisive') anyText.push(rule.index);
        else alwaysRun.push(rule);
        continue;
      }
      const ids = new Set<number>();
      for (const literal of required.literals) ids.add(idOf(literal));
      slotLiterals.push([...ids]);
      slotRules.push(rule);
      slotShapes.push(required.shape);
    }
    function idOf(literal: AnchoredLiteral): number {
      const key = literalKey(literal);
      let id = literalIds.get(key);
      if (id === undefined) {
        id = literals.length;
        literals.push(literal);
        literalIds.set(key, id);
      }
      return id;
    }
    const kinds = new Uint8Array(slotShapes.length);
    const firsts = new Int32Array(slotShapes.length);
    const seconds = new Int32Array(slotShapes.length);
    slotShapes.forEach((shape, slot) => {
      if (shape.kind === 'decisive') kinds[slot] = DECISIVE;
      else if (shape.kind === 'ordered') {
        kinds[slot] = ORDERED;
        firsts[slot] = idOf(shape.first);
        seconds[slot] = idOf(shape.second);
      } else if (shape.kind === 'after-prefix') {
        kinds[slot] = AFTER_PREFIX;
        firsts[slot] = idOf(shape.literal);
        seconds[slot] = shape.prefixBytes;
      } else if (shape.kind === 'before-suffix') {
        kinds[slot] = BEFORE_SUFFIX;
        firsts[slot] = idOf(shape.literal);
        seconds[slot] = shape.suffixBytes;
      } else kinds[slot] = RUN;
    });
    // A group of one or two globs runs them directly: cheaper than a scan for so few.
    // Where a literal last ends matters only to the literal that must come after another.
    const lastWanted = new Set<number>();
    for (let slot = 0; slot < kinds.length; slot++) {
      if (kinds[slot] === ORDERED) lastWanted.add(seconds[slot]!);
      else if (kinds[slot] === AFTER_PREFIX) lastWanted.add(firsts[slot]!);
    }
    this.#automaton =
      slotRules.length > SMALL_GROUP
        ? LiteralAutomaton.build(literals, (literal) => lastWanted.has(literal))
        : null;
    if (this.#automaton === null) alwaysRun.push(...slotRules);
    const byTrigger: number[][] = literals.map(() => []);
    const othersStart = new Int32Array(slotLiterals.length + 1);
    const others: number[] = [];
    slotLiterals.forEach((ids, slot) => {
      const trigger = ids.reduce((best, id) =>
        literals[id]!.text.length > literals[best]!.text.length ? id : best,
      );
      byTrigger[trigger]!.push(slot);
      for (const id of ids) if (id !== trigger) others.push(id);
      othersStart[slot + 1] = others.length;
    });
    this.#anyText = anyText;
    this.#alwaysRun = alwaysRun;
    this.#slotsByTrigger = byTrigger.map((slots) => Int32Array.from(slots));
    this.#slotRules = slotRules;
    this.#othersStart = othersStart;
    this.#others = Int32Array.from(others);
    this.#slotKinds = kinds;
    this.#slotFirst = firsts;
    this.#slotSecond = seconds;
    this.#literalEpochs = new Int32Array(literals.length);
  }

  /**
   * The text at the group's path of an input known to be an object and not
   * an array (the usual case), with an argv of strings left unjoined, or
   * undefined when there is none. Any other input has its text read by
   * `textAtPath`.
   */
  readObjectSource(input: Record<string, unknown>): TextSource | undefined {
    const key = this.#key;
    return key === null
      ? textAtPath(input, this.path)
      : sourceAtOwnKey(input, key, this.#fieldCode);
  }

  /** Appends to `matched` the index of every rule of the group that matches the text. */
  collect(source: TextSource, matched: number[]): void {
    for (const index of this.#anyText) matched.push(index);
    if (this.#automaton === null && this.#alwaysRun.length === 0) return;
    // Made only when a glob must run: most calls never need it.
    let text: PreparedText | null = null;
    const alwaysRun = this.#alwaysRun;
    if (alwaysRun.length > 0) {
      text = new PreparedText(sourceText(source));
      for (const rule of alwaysRun) {
        if (rule.match!.matchesPrepared(text)) matched.push(rule.index);
      }
    }
    const automaton = this.#automaton;
    if (automaton === null) return;
    const count = automaton.scan(source);
    if (count === 0) return;
    const found = automaton.found;
    if (this.#epoch === 0x7fffffff) {
      this.#literalEpochs.fill(0);
      this.#epoch = 0;
    }
    const epoch = ++this.#epoch;
    const literalEpochs = this.#literalEpochs;
    for (let f = 0; f < count; f++) literalEpochs[found[f]!] = epoch;
    const othersStart = this.#othersStart;
    const others = this.#others;
    for (let f = 0; f < count; f++) {
      const slots = this.#slotsByTrigger[found[f]!]!;
      next: for (let s = 0; s < slots.length; s++) {
        const slot = slots[s]!;
        for (let o = othersStart[slot]!; o < othersStart[slot + 1]!; o++) {
          if (literalEpochs[others[o]!] !== epoch) continue next;
        }
        const rule = this.#slotRules[slot]!;
        if (this.#slotKinds[slot] === RUN) {
          text ??= new PreparedText(sourceText(source));
          if (rule.match!.matchesPrepared(text)) matched.push(rule.index);
        } else if (this.#decidedByPositions(slot, automaton)) {
          matched.push(rule.index);
        }
      }
    }
  }

  /**
   * Whether a slot whose literals all occur, and whose shape needs no glob
   * run, matches: from their positions (byte offsets of the text's UTF-8 form).
   */
  #decidedByPositions(slot: number, automaton: LiteralAutomaton): boolean {
    const kind = this.#slotKinds[slot]!;
    const first = this.#slotFirst[slot]!;
    const second = this.#slotSecond[slot]!;
    switch (kind) {
      case ORDERED:
        return (
          automaton.firstEnd[first]! <= automaton.lastEnd[second]! - automaton.literalBytes[second]!
        );
      case AFTER_PREFIX:
        return automaton.lastEnd[first]! - automaton.literalBytes[first]! >= second;
      case BEFORE_SUFFIX:
        return automaton.firstEnd[first]! <= automaton.scannedBytes - second;
      default:
        // DECISIVE: its literals occurring is the match.
        return true;
    }
  }
}
