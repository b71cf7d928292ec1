import { type GlobShape, globShape, shapeMatches } from './glob-shape.js';

/** How many characters of a literal run key the substring index. */
const GRAM = 3;

/**
 * Finds, among many globs, the ones that match a given text, without trying
 * each: a glob is filed under its literal prefix, else its literal suffix,
 * else a three-character piece of its longest literal run; a text then
 * looks up only its own prefixes, suffixes and pieces. Globs with none of
 * those (`*`, `?*`, `*a*`) are tried on every text. Every hit is confirmed
 * with core's matcher, so the answer is exact.
 */
export class GlobIndex<T> {
  private readonly byPrefix = new Map<string, { shape: GlobShape; item: T }[]>();
  private readonly bySuffix = new Map<string, { shape: GlobShape; item: T }[]>();
  private readonly byGram = new Map<string, { shape: GlobShape; item: T }[]>();
  private readonly scanned: { shape: GlobShape; item: T }[] = [];
  private readonly prefixLengths = new Set<number>();
  private readonly suffixLengths = new Set<number>();

  /** Files `item` under the glob `source`. */
  add(source: string, item: T): void {
    const shape = globShape(source);
    if (shape.glob === null) return;
    const filed = { shape, item };
    if (shape.prefix.length > 0) {
      push(this.byPrefix, shape.prefix, filed);
      this.prefixLengths.add(shape.prefix.length);
    } else if (shape.suffix.length > 0) {
      push(this.bySuffix, shape.suffix, filed);
      this.suffixLengths.add(shape.suffix.length);
    } else if (shape.longestLiteral.length >= GRAM) {
      push(this.byGram, shape.longestLiteral.slice(0, GRAM), filed);
    } else {
      this.scanned.push(filed);
    }
  }

  /** Items whose glob matches `text` (an item filed under several globs may repeat). */
  matching(text: string): T[] {
    const found: T[] = [];
    const keep = (list: readonly { shape: GlobShape; item: T }[] | undefined) => {
      if (list) for (const { shape, item } of list) if (shapeMatches(shape, text)) found.push(item);
    };
    for (const length of this.prefixLengths)
      if (length <= text.length) keep(this.byPrefix.get(text.slice(0, length)));
    for (const length of this.suffixLengths)
      if (length <= text.length) keep(this.bySuffix.get(text.slice(text.length - length)));
    if (this.byGram.size > 0) {
      const seen = new Set<string>();
      for (let start = 0; start + GRAM <= text.length; start++) {
        const gram = text.slice(start, start + GRAM);
        if (seen.has(gram)) continue;
        seen.add(gram);
        keep(this.byGram.get(gram));
      }
    }
    keep(this.scanned);
    return found;
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
