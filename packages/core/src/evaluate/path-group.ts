import { PreparedText } from '../glob/prepared-text.js';
import type { CompiledRule } from '../rules/compiled-rule.js';
import { type AnchoredLiteral, LiteralAutomaton, literalKey } from './literal-automaton.js';
import { requiredLiterals } from './rule-literals.js';

/**
 * The rules of one tool that read the same path, indexed so that a call
 * reads its text once: one automaton pass finds which required literals
 * occur, and only the rules whose literals all occur are looked at; of
 * those, a glob runs only when its literals do not already decide it.
 */
export class PathGroup {
  readonly path: readonly string[];
  /** Rules that match whenever there is text: no glob, or a bare `*`. */
  readonly #anyText: readonly number[];
  /** Rules that must always run their glob: no literal to look for, or no automaton. */
  readonly #alwaysRun: readonly CompiledRule[];
  readonly #automaton: LiteralAutomaton | null;
  /** For each literal, the slots of the rules that need it. */
  readonly #slotsByLiteral: readonly Int32Array[];
  readonly #slotRules: readonly CompiledRule[];
  readonly #slotNeeds: Int32Array;
  readonly #slotDecisive: Uint8Array;
  readonly #slotCounts: Int32Array;
  readonly #slotEpochs: Int32Array;
  readonly #found: Int32Array;
  #epoch = 0;

  constructor(path: readonly string[], rules: readonly CompiledRule[]) {
    this.path = path;
    const anyText: number[] = [];
    const alwaysRun: CompiledRule[] = [];
    const literals: AnchoredLiteral[] = [];
    const literalIds = new Map<string, number>();
    const slotLiterals: number[][] = [];
    const slotRules: CompiledRule[] = [];
    const slotDecisive: number[] = [];
    for (const rule of rules) {
      if (rule.match === null) {
        anyText.push(rule.index);
        continue;
      }
      const required = requiredLiterals(rule.match);
      if (required.literals.length === 0) {
        if (required.decisive) anyText.push(rule.index);
        else alwaysRun.push(rule);
        continue;
      }
      const ids = new Set<number>();
      for (const literal of required.literals) {
        const key = literalKey(literal);
        let id = literalIds.get(key);
        if (id === undefined) {
          id = literals.length;
          literals.push(literal);
          literalIds.set(key, id);
        }
        ids.add(id);
      }
      slotLiterals.push([...ids]);
      slotRules.push(rule);
      slotDecisive.push(required.decisive ? 1 : 0);
    }
    this.#automaton = literals.length > 0 ? LiteralAutomaton.build(literals) : null;
    if (this.#automaton === null) alwaysRun.push(...slotRules);
    const bySlot: number[][] = literals.map(() => []);
    slotLiterals.forEach((ids, slot) => {
      for (const id of ids) bySlot[id]!.push(slot);
    });
    this.#anyText = anyText;
    this.#alwaysRun = alwaysRun;
    this.#slotsByLiteral = bySlot.map((slots) => Int32Array.from(slots));
    this.#slotRules = slotRules;
    this.#slotNeeds = Int32Array.from(slotLiterals, (ids) => ids.length);
    this.#slotDecisive = Uint8Array.from(slotDecisive);
    this.#slotCounts = new Int32Array(slotRules.length);
    this.#slotEpochs = new Int32Array(slotRules.length);
    this.#found = new Int32Array(literals.length);
  }

  /** Appends to `matched` the index of every rule of the group that matches `raw`. */
  collect(raw: string, matched: number[]): void {
    for (const index of this.#anyText) matched.push(index);
    if (this.#automaton === null && this.#alwaysRun.length === 0) return;
    const text = new PreparedText(raw);
    for (const rule of this.#alwaysRun) {
      if (rule.match!.matchesPrepared(text)) matched.push(rule.index);
    }
    const automaton = this.#automaton;
    if (automaton === null) return;
    const found = this.#found;
    const count = automaton.scan(text.units, found);
    if (count === 0) return;
    if (this.#epoch === 0x7fffffff) {
      this.#slotEpochs.fill(0);
      this.#epoch = 0;
    }
    const epoch = ++this.#epoch;
    const counts = this.#slotCounts;
    const epochs = this.#slotEpochs;
    const needs = this.#slotNeeds;
    for (let f = 0; f < count; f++) {
      const slots = this.#slotsByLiteral[found[f]!]!;
      for (let s = 0; s < slots.length; s++) {
        const slot = slots[s]!;
        if (epochs[slot] !== epoch) {
          epochs[slot] = epoch;
          counts[slot] = 0;
        }
        if (++counts[slot]! !== needs[slot]) continue;
        const rule = this.#slotRules[slot]!;
        if (this.#slotDecisive[slot] === 1 || rule.match!.matchesPrepared(text)) {
          matched.push(rule.index);
        }
      }
    }
  }
}
