/** Which end of the waiting list comes first. */
export type Order = 'newest' | 'oldest';

/** What orders a waiting row: its park time, then its run and key (the kernel's page order). */
export interface Place {
  createdAt: number;
  runId: string;
  key: string;
}

/** Compares two rows in list order: negative when `a` comes before `b`. */
export function comparePlaces(a: Place, b: Place, order: Order): number {
  const sign = order === 'newest' ? -1 : 1;
  if (a.createdAt !== b.createdAt) return sign * (a.createdAt - b.createdAt);
  if (a.runId !== b.runId) return sign * (a.runId < b.runId ? -1 : 1);
  if (a.key !== b.key) return sign * (a.key < b.key ? -1 : 1);
  return 0;
}

/**
 * Where an item goes in a sorted array (binary search): the index of the
 * first element that comes after it.
 */
export function insertionIndex<T>(sorted: readonly T[], item: T, compare: (a: T, b: T) => number) {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (compare(sorted[middle] as T, item) <= 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The group a row belongs to: the calls one model round of one run proposed. */
export function groupKey(row: { run_id: string; round: number }): string {
  return `${row.run_id}#${row.round}`;
}

/** The tab's title with the count of what waits: `(12) Airlock inbox`. */
export function titleWith(total: number, base = 'Airlock inbox'): string {
  return total > 0 ? `(${total}) ${base}` : base;
}
