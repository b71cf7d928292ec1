import { currentWorkBudget, type WorkBudget } from '../analysis/work-budget.js';
import { type GlobShape, globShape, shapeMatches } from './glob-shape.js';

/** How many UTF-16 units of a literal run key the substring index. */
const GRAM = 3;

interface Filed<T> {
  readonly shape: GlobShape;
  readonly item: T;
}

/** A node of a character trie: the globs whose literal end is the path to it. */
interface TrieNode<T> {
  readonly children: Map<number, TrieNode<T>>;
  readonly filed: Filed<T>[];
}

function trieNode<T>(): TrieNode<T> {
  return { children: new Map(), filed: [] };
}

/** Three UTF-16 units as one number (48 bits), so looking up a piece allocates nothing. */
function gramKey(text: string, start: number): number {
  return (
    text.charCodeAt(start) * 0x100000000 +
    text.charCodeAt(start + 1) * 0x10000 +
    text.charCodeAt(start + 2)
  );
}

/**
 * Finds, among many globs, the ones that match a given text, without trying
 * each: a glob is filed under its literal prefix (in a trie walked along
 * the text), else its literal suffix (in a trie walked backwards), else the
 * least used three-unit piece of its longest literal run (looked up for
 * each piece of the text). Globs with none of those (`*`, `?*`, `*a*`) are tried on every
 * text. Every hit is confirmed with core's matcher, so the answer is exact,
 * and a lookup costs the text's length plus the hits, not the glob count.
 * Each confirmation is charged to the running lint rule's work budget (the
 * text's length plus one); once it is spent, lookups stop early and find
 * fewer items, which the rules read as "not shown", never as a finding.
 */
export class GlobIndex<T> {
  private readonly prefixes = trieNode<T>();
  private readonly suffixes = trieNode<T>();
  private readonly byGram = new Map<number, Filed<T>[]>();
  private readonly scanned: Filed<T>[] = [];

  /** Files `item` under the glob `source`. */
  add(source: string, item: T): void {
    const shape = globShape(source);
    if (shape.glob === null) return;
    const filed = { shape, item };
    if (shape.prefix.length > 0) insert(this.prefixes, shape.prefix, false).filed.push(filed);
    else if (shape.suffix.length > 0) insert(this.suffixes, shape.suffix, true).filed.push(filed);
    else if (shape.longestLiteral.length >= GRAM) {
      // Any piece of the run must occur in a matching text; file under the least used one so far,
      // so globs sharing a common start (`*git push*`, `*git log*`) spread over buckets.
      const literal = shape.longestLiteral;
      let best = gramKey(literal, 0);
      for (let start = 1; start + GRAM <= literal.length; start++) {
        const key = gramKey(literal, start);
        if ((this.byGram.get(key)?.length ?? 0) < (this.byGram.get(best)?.length ?? 0)) best = key;
      }
      const list = this.byGram.get(best);
      if (list) list.push(filed);
      else this.byGram.set(best, [filed]);
    } else this.scanned.push(filed);
  }

  /** Items whose glob matches `text` (an item filed under several globs may repeat). */
  matching(text: string): T[] {
    const found: T[] = [];
    this.visit(text, (item) => {
      found.push(item);
      return false;
    });
    return found;
  }

  /** True when some item whose glob matches `text` passes `accept`; stops at the first. */
  some(text: string, accept: (item: T) => boolean): boolean {
    return this.visit(text, accept);
  }

  /** Calls `visit` for each item whose glob matches `text` until it returns true; returns whether it did. */
  private visit(text: string, accept: (item: T) => boolean): boolean {
    const budget = currentWorkBudget();
    if (budget?.exhausted) return false;
    const visit = { text, accept, budget, cost: text.length + 1 };
    if (walk(this.prefixes, false, visit) || walk(this.suffixes, true, visit)) return true;
    if (this.byGram.size > 0) {
      const seen = new Set<number>();
      for (let start = 0; start + GRAM <= text.length; start++) {
        const key = gramKey(text, start);
        if (seen.has(key)) continue;
        seen.add(key);
        const list = this.byGram.get(key);
        if (list && confirm(list, visit)) return true;
      }
    }
    return confirm(this.scanned, visit);
  }
}

function insert<T>(root: TrieNode<T>, literal: string, backwards: boolean): TrieNode<T> {
  let node = root;
  for (let step = 0; step < literal.length; step++) {
    const unit = literal.charCodeAt(backwards ? literal.length - 1 - step : step);
    let child = node.children.get(unit);
    if (!child) {
      child = trieNode<T>();
      node.children.set(unit, child);
    }
    node = child;
  }
  return node;
}

/** One lookup: the text, what to do with a hit, and the budget each confirmation is charged to. */
interface Visit<T> {
  readonly text: string;
  readonly accept: (item: T) => boolean;
  readonly budget: WorkBudget | undefined;
  readonly cost: number;
}

/** Confirms the globs filed along the text's path through the trie (its prefixes, or suffixes). */
function walk<T>(root: TrieNode<T>, backwards: boolean, visit: Visit<T>): boolean {
  const { text } = visit;
  let node: TrieNode<T> | undefined = root;
  for (let step = 0; node && step < text.length; step++) {
    node = node.children.get(text.charCodeAt(backwards ? text.length - 1 - step : step));
    if (node && node.filed.length > 0 && confirm(node.filed, visit)) return true;
  }
  return false;
}

/** Confirms each glob of `list`; stops (finding no more) when the budget cannot pay for one. */
function confirm<T>(list: readonly Filed<T>[], visit: Visit<T>): boolean {
  for (const { shape, item } of list) {
    if (visit.budget && !visit.budget.spend(visit.cost)) return false;
    if (shapeMatches(shape, visit.text) && visit.accept(item)) return true;
  }
  return false;
}
