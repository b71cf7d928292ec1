import { compileGlob, type Glob } from '@airlock/core';
import type { RuleEntry } from './rule-entry.js';

const encoder = new TextEncoder();

function isLiteral(glob: string): boolean {
  return !glob.includes('*') && !glob.includes('?');
}

const endsCache = new Map<string, { prefix: Uint8Array; suffix: Uint8Array }>();

/** The literal bytes before the first wildcard and after the last one (remembered per glob). */
function literalEnds(glob: string): { prefix: Uint8Array; suffix: Uint8Array } {
  let ends = endsCache.get(glob);
  if (!ends) {
    if (endsCache.size >= 10_000) endsCache.clear();
    ends = computeLiteralEnds(glob);
    endsCache.set(glob, ends);
  }
  return ends;
}

function computeLiteralEnds(glob: string): { prefix: Uint8Array; suffix: Uint8Array } {
  const first = glob.search(/[*?]/);
  const last = Math.max(glob.lastIndexOf('*'), glob.lastIndexOf('?'));
  if (first < 0) {
    const all = encoder.encode(glob);
    return { prefix: all, suffix: all };
  }
  return {
    prefix: encoder.encode(glob.slice(0, first)),
    suffix: encoder.encode(glob.slice(last + 1)),
  };
}

function compatible(a: Uint8Array, b: Uint8Array, fromEnd: boolean): boolean {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const x = fromEnd ? a[a.length - 1 - index] : a[index];
    const y = fromEnd ? b[b.length - 1 - index] : b[index];
    if (x !== y) return false;
  }
  return true;
}

/**
 * A cheap necessary condition for two globs to share a text: their literal
 * prefixes agree and their literal suffixes agree. False means disjoint.
 */
export function mayIntersect(a: string, b: string): boolean {
  const x = literalEnds(a);
  const y = literalEnds(b);
  return compatible(x.prefix, y.prefix, false) && compatible(x.suffix, y.suffix, true);
}

/**
 * Finds the rules whose tool pattern may share a tool name with a given
 * rule's, without comparing every pair: literal alternatives are looked up
 * by name, and only wildcard alternatives are scanned.
 */
export class ToolIndex {
  private readonly byLiteral = new Map<string, RuleEntry[]>();
  private readonly wildcards: { entry: RuleEntry; glob: Glob }[] = [];

  constructor(private readonly entries: readonly RuleEntry[]) {
    for (const entry of entries) {
      for (const alternative of new Set(entry.alternatives)) {
        if (isLiteral(alternative)) {
          const list = this.byLiteral.get(alternative) ?? [];
          list.push(entry);
          this.byLiteral.set(alternative, list);
        } else {
          const glob = compileGlob(alternative);
          if (glob.ok) this.wildcards.push({ entry, glob: glob.value });
        }
      }
    }
  }

  /** Rules (other than `entry`) whose tool pattern may match a name `entry`'s matches, by index. */
  candidates(entry: RuleEntry, keep: (other: RuleEntry) => boolean = () => true): RuleEntry[] {
    const found = new Map<number, RuleEntry>();
    const add = (other: RuleEntry) => {
      if (other.index !== entry.index && !found.has(other.index) && keep(other))
        found.set(other.index, other);
    };
    for (const alternative of entry.alternatives) {
      if (isLiteral(alternative)) {
        for (const other of this.byLiteral.get(alternative) ?? []) add(other);
        for (const { entry: other, glob } of this.wildcards)
          if (glob.matches(alternative)) add(other);
      } else {
        for (const other of this.entries) {
          if (other.alternatives.some((glob) => mayIntersect(alternative, glob))) add(other);
        }
      }
    }
    return [...found.values()].sort((a, b) => a.index - b.index);
  }
}
