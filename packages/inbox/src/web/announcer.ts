import { h } from './dom.js';

/** The least time between two announcements of one announcer. */
export const ANNOUNCE_EVERY_MS = 10_000;

/**
 * A status a screen reader announces (`role=status`, hidden from sight),
 * said at most once every {@link ANNOUNCE_EVERY_MS}: a burst of changes
 * (a thousand calls parking, a long run's rows arriving) is said once at
 * its start and once, as it then stands, when the pause ends, instead of
 * one announcement a change. The visible text beside it changes freely.
 */
export class Announcer {
  readonly element: HTMLElement = h('span', { class: 'announce', role: 'status' });
  private last = Number.NEGATIVE_INFINITY;
  private pending: string | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;

  /** Says `text`, now or when the pause since the last announcement ends; nothing if unchanged. */
  say(text: string): void {
    const wait = this.last + ANNOUNCE_EVERY_MS - Date.now();
    if (wait <= 0 && this.timer === null) {
      this.announce(text);
      return;
    }
    this.pending = text;
    this.timer ??= setTimeout(
      () => {
        this.timer = null;
        const next = this.pending;
        this.pending = null;
        if (next !== null) this.announce(next);
      },
      Math.max(0, wait),
    );
  }

  private announce(text: string): void {
    this.last = Date.now();
    if (this.element.textContent !== text) this.element.textContent = text;
  }
}
