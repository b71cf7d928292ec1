import { describe, expect, it } from 'vitest';
import { comparePlaces, groupKey, insertionIndex, type Place, titleWith } from './order.js';

const place = (createdAt: number, runId = 'r', key = 't1'): Place => ({ createdAt, runId, key });

describe('the waiting list order', () => {
  it('sorts newest or oldest first, ties by run and key as the kernel pages them', () => {
    const places = [place(2), place(1, 'b'), place(3), place(1, 'a')];
    const oldest = [...places].sort((a, b) => comparePlaces(a, b, 'oldest'));
    expect(oldest.map((p) => `${p.createdAt}${p.runId}`)).toEqual(['1a', '1b', '2r', '3r']);
    const newest = [...places].sort((a, b) => comparePlaces(a, b, 'newest'));
    expect(newest.map((p) => `${p.createdAt}${p.runId}`)).toEqual(['3r', '2r', '1b', '1a']);
  });

  it('finds where a new row goes by binary search', () => {
    const sorted = [place(9), place(7), place(4)];
    const compare = (a: Place, b: Place) => comparePlaces(a, b, 'newest');
    expect(insertionIndex(sorted, place(10), compare)).toBe(0);
    expect(insertionIndex(sorted, place(5), compare)).toBe(2);
    expect(insertionIndex(sorted, place(1), compare)).toBe(3);
  });

  it('groups by run and round, and counts in the title', () => {
    expect(groupKey({ run_id: 'run_1', round: 2 })).toBe('run_1#2');
    expect(titleWith(0)).toBe('Airlock inbox');
    expect(titleWith(1001)).toBe('(1001) Airlock inbox');
  });
});
