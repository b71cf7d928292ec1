import type { FeedEvent } from '../views.js';

/**
 * What the SDK reads of the kernel's socket frames, checked before it is
 * read: core's schemas declare what the kernel sends, and a frame from
 * something else in between (or a kernel of another version) may not fit.
 */

/** A sequence number or feed position: a whole number, zero or more. */
export function isPosition(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/** Whether a feed frame's event has what the feed reads of it: its type and its sequence number. */
export function isEvent(value: unknown): value is FeedEvent {
  if (typeof value !== 'object' || value === null) return false;
  const { type, seq } = value as { type?: unknown; seq?: unknown };
  return typeof type === 'string' && isPosition(seq);
}
