import { describe, expect, it } from 'vitest';
import { nextPageLines } from './paging.js';

describe('nextPageLines: the one hint every paged list prints under a page more rows follow', () => {
  it('names the command with the filters given, the cursor, and --all', () => {
    const state: string | undefined = undefined;
    expect(
      nextPageLines({
        again: ['airlock runs list', state && `--state ${state}`, '--limit 2'],
        what: 'runs',
        shown: 2,
        nextCursor: 'c2',
      }),
    ).toEqual([
      'showing 2; more runs exist, next page: airlock runs list --limit 2 --cursor c2 (or --all)',
    ]);
  });

  it('says how many in all where the kernel counts them', () => {
    expect(
      nextPageLines({
        again: ['airlock decisions list'],
        what: 'decisions',
        shown: 2,
        total: 3,
        nextCursor: 'c3',
      }),
    ).toEqual(['showing 2 of 3; next page: airlock decisions list --cursor c3 (or --all)']);
  });

  it('prints nothing after the last page', () => {
    expect(
      nextPageLines({ again: ['airlock runs list'], what: 'runs', shown: 1, nextCursor: null }),
    ).toEqual([]);
  });
});
