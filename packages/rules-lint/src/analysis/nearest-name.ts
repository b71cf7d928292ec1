/**
 * The name nearest `wanted` by edit distance, when it is near enough to be a typo of it (at most
 * a third of its length, and at least 2, characters away); undefined otherwise.
 */
export function nearestName(wanted: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(wanted.length / 3)) + 1;
  for (const name of names) {
    const distance = editDistance(wanted, name);
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance: the fewest single-character insertions, deletions and swaps between them. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const swap = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + swap);
    }
    previous = current;
  }
  return previous[b.length]!;
}
