import { utf8Bytes } from '@airlock/core';
import { currentWorkBudget, PRODUCT_STEP_UNITS } from '../analysis/work-budget.js';
import { type ByteGlob, compileByteGlob, GlobSet, literalBytes } from './byte-nfa.js';
import { FILLER, type GlobShape, globShape, mayIntersect, shapeMatches } from './glob-shape.js';

/**
 * How many product states one question may visit before it answers
 * "unknown". Real rule globs stay far below it; the bound only stops a
 * crafted pathological file from stalling an editor.
 */
export const DEFAULT_STATE_BUDGET = 20_000;

/**
 * Automaton positions one question may step through (a state of many globs
 * costs more than a state of one), whatever its state count.
 */
export const QUESTION_WORK_UNITS = 2_000_000;

/** What a product exploration reports at each reachable state where the subject accepts. */
export type AcceptVisitor = (accepting: readonly number[], witness: () => Uint8Array) => boolean;

/**
 * How an exploration ended: every state seen, stopped by the visitor, out of
 * this question's budget, or out of the running lint rule's budget.
 */
export type ExploreEnd = 'complete' | 'stopped' | 'budget' | 'exhausted';

interface Node {
  readonly subject: number[];
  readonly others: number[];
  readonly parent: Node | null;
  readonly symbol: number;
}

/**
 * Explores the product of `subject` (determinized) with the union of
 * `others` (determinized together, so each state knows exactly which of them
 * accept) over the alphabet of literal bytes of all globs plus one "other"
 * byte standing for every byte none of them names. For each reachable state
 * in which the subject accepts, calls `visit` with the indices of the
 * accepting others; the visitor returns false to stop. Exact: two texts that
 * differ only in unnamed bytes are indistinguishable to every glob involved.
 */
export function exploreProduct(
  subject: ByteGlob,
  others: readonly ByteGlob[],
  visit: AcceptVisitor,
  budget = DEFAULT_STATE_BUDGET,
): ExploreEnd {
  const alphabetSet = new Set<number>();
  literalBytes(subject, alphabetSet);
  for (const other of others) literalBytes(other, alphabetSet);
  const otherByte = firstUnnamedByte(alphabetSet);
  const alphabet = [...alphabetSet];
  if (otherByte !== undefined) alphabet.push(-1);

  const subjectSet = new GlobSet([subject]);
  const otherSet = new GlobSet(others);
  const start: Node = {
    subject: subjectSet.start(),
    others: otherSet.start(),
    parent: null,
    symbol: 0,
  };
  const seen = new Set<string>([keyOf(start)]);
  const queue: Node[] = [start];
  const run = currentWorkBudget();
  let work = 0;
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head]!;
    const cost = alphabet.length * (node.subject.length + node.others.length);
    work += cost;
    if (work > QUESTION_WORK_UNITS) return 'budget';
    if (run && !run.spend(cost * PRODUCT_STEP_UNITS)) return 'exhausted';
    if (subjectSet.accepting(node.subject).length > 0) {
      const witness = () => witnessOf(node, otherByte ?? 0);
      if (!visit(otherSet.accepting(node.others), witness)) return 'stopped';
    }
    for (const symbol of alphabet) {
      const nextSubject = subjectSet.step(node.subject, symbol);
      if (nextSubject.length === 0) continue;
      const next: Node = {
        subject: nextSubject,
        others: otherSet.step(node.others, symbol),
        parent: node,
        symbol,
      };
      const key = keyOf(next);
      if (seen.has(key)) continue;
      if (seen.size >= budget) return 'budget';
      seen.add(key);
      queue.push(next);
    }
  }
  return 'complete';
}

/**
 * A text in L(a) and in none of L(b...), as bytes, or null when L(a) is a
 * subset of their union; undefined when a budget ran out. Cheap tests come
 * first: a sample text of `a` (its wildcards filled in) that no b matches is
 * a witness, and globs that share no text with `a` are left out of the
 * union. Otherwise the product automaton decides, and its witness is a
 * shortest one (breadth-first). Answers for the default budget are
 * remembered: rule lists repeat the same globs.
 */
export function findUncoveredText(
  a: string,
  bs: readonly string[],
  budget = DEFAULT_STATE_BUDGET,
): Uint8Array | null | undefined {
  const subject = globShape(a);
  if (subject.glob === null) return null;
  const shapes = bs.map(globShape);
  for (const sample of subject.samples) {
    if (!shapes.some((shape) => shapeMatches(shape, sample))) return utf8Bytes(sample);
  }
  if (coveredByOneWithoutQuestion(subject, shapes)) return null;
  const relevant = [
    ...new Set(shapes.filter((shape) => mayIntersect(subject, shape)).map((shape) => shape.source)),
  ];
  if (relevant.includes('*') || relevant.includes(a)) return null;
  // JSON keeps the key unambiguous: no join of globs can collide with another list.
  const key = budget === DEFAULT_STATE_BUDGET ? JSON.stringify([a, relevant]) : undefined;
  if (key !== undefined && answers.has(key)) return answers.get(key);
  let found: Uint8Array | null = null;
  const end = exploreProduct(
    compileByteGlob(a),
    relevant.map(compileByteGlob),
    (accepting, witness) => {
      if (accepting.length > 0) return true;
      found = witness();
      return false;
    },
    budget,
  );
  const answer = end === 'budget' || end === 'exhausted' ? undefined : found;
  // An answer cut short by the lint rule's budget says nothing about the globs: never remember it.
  if (key !== undefined && end !== 'exhausted') {
    if (answers.size >= ANSWER_CACHE_LIMIT) answers.clear();
    answers.set(key, answer);
  }
  return answer;
}

/**
 * A glob b with no `?` that matches the subject's filler sample (each
 * wildcard read as one filler byte) matches every text of the subject:
 * b's literal pieces then sit inside the subject's literal runs, in order,
 * anchored where they must be, and every text of the subject has those
 * runs. Exact for such b (the filler byte in no glob), so no automaton is
 * needed for the most common questions (`git status x*` inside `git *`).
 */
function coveredByOneWithoutQuestion(subject: GlobShape, shapes: readonly GlobShape[]): boolean {
  const sample = subject.samples[subject.samples.length - 1];
  if (sample === undefined || subject.source.includes(FILLER)) return false;
  return shapes.some(
    (shape) =>
      !shape.source.includes('?') && !shape.source.includes(FILLER) && shapeMatches(shape, sample),
  );
}

const ANSWER_CACHE_LIMIT = 50_000;
const answers = new Map<string, Uint8Array | null | undefined>();

/**
 * Decides L(a) ⊆ L(b1) ∪ ... ∪ L(bn) exactly for anchored byte globs.
 * Returns undefined only when the state budget ran out (treat as "no").
 */
export function globIncluded(
  a: string,
  bs: string | readonly string[],
  budget?: number,
): boolean | undefined {
  const list = typeof bs === 'string' ? [bs] : bs;
  if (list.includes('*') || list.includes(a)) return true;
  const uncovered = findUncoveredText(a, list, budget);
  return uncovered === undefined ? undefined : uncovered === null;
}

/**
 * Decides whether every tool name matched by tool pattern `a` (`|`-separated
 * anchored globs) is matched by pattern `b`. Undefined when out of budget.
 */
export function toolPatternIncluded(a: string, b: string): boolean | undefined {
  const others = b.split('|');
  let result: boolean | undefined = true;
  for (const alternative of a.split('|')) {
    const included = globIncluded(alternative, others);
    if (included === false) return false;
    if (included === undefined) result = undefined;
  }
  return result;
}

function keyOf(node: Node): string {
  return `${node.subject.join(',')}|${node.others.join(',')}`;
}

function firstUnnamedByte(named: ReadonlySet<number>): number | undefined {
  // Prefer a printable byte so witnesses read well in messages and tests.
  for (let byte = 0x61; byte < 0x100; byte++) if (!named.has(byte)) return byte;
  for (let byte = 0; byte < 0x61; byte++) if (!named.has(byte)) return byte;
  return undefined;
}

function witnessOf(node: Node, otherByte: number): Uint8Array {
  const bytes: number[] = [];
  for (let current: Node | null = node; current?.parent; current = current.parent) {
    bytes.push(current.symbol === -1 ? otherByte : current.symbol);
  }
  return Uint8Array.from(bytes.reverse());
}
