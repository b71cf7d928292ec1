import { unreadableAnswer } from '../errors.js';
import type { FeedEvent } from '../views.js';
import { invalidInput } from './deadline.js';

/** The most events the kernel hands over in one page (core's LimitSchema). */
const LARGEST_PAGE = 1000;

/** One page as the events route answers it. */
export interface EventPageAnswer {
  events: FeedEvent[];
  /** Where the next page starts; null at the end. Absent from kernels older than it. */
  next_after?: number | null | undefined;
}

/**
 * Reads pages of a log on from `after` until `limit` events are in hand or
 * the log ends. A page may stop short of its limit at the kernel's byte
 * budget with more to come, so only `next_after: null` ends the reading; a
 * kernel that does not send it ends a page short of its limit only at the end.
 * @throws ValidationError `invalid_input` for a limit that is not a whole number above 0,
 *   before sending anything; ServerError `internal` for a `next_after` not past the page's
 *   `after` (going on would read the same events for ever); whatever `readPage` throws.
 */
export async function readEventPages(
  readPage: (page: { after: number; limit: number }) => Promise<EventPageAnswer>,
  options: { after?: number | undefined; limit?: number | undefined },
): Promise<FeedEvent[]> {
  if (options.limit !== undefined && !(Number.isSafeInteger(options.limit) && options.limit >= 1)) {
    throw invalidInput([
      { code: 'invalid_input', pointer: '/limit', message: 'limit must be a whole number above 0' },
    ]);
  }
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const events: FeedEvent[] = [];
  let after = options.after ?? 0;
  while (events.length < limit) {
    const asked = Math.min(limit - events.length, LARGEST_PAGE);
    const page = await readPage({ after, limit: asked });
    events.push(...page.events);
    const last = page.events.at(-1);
    const next =
      page.next_after === undefined
        ? page.events.length < asked || !last
          ? null
          : last.seq
        : page.next_after;
    // A kernel that answered a page with nothing in it and somewhere to go on would loop here.
    if (next === null || page.events.length === 0) break;
    if (!Number.isSafeInteger(next) || next <= after) {
      throw unreadableAnswer(
        `the events page after ${after} said to go on after ${String(next)}, which is not past it; reading stopped there`,
        null,
      );
    }
    after = next;
  }
  return events;
}
