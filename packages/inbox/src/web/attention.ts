import { titleWith } from './order.js';

const ASKED_KEY = 'airlock.inbox.notifications-asked';

/**
 * What tells a person something new waits: the count in the tab's title and,
 * once they allowed it, a desktop notification while the tab is not in view.
 */
export class Attention {
  private readonly base: string;

  constructor(private readonly doc: Document = document) {
    this.base = doc.title.replace(/^\(\d+\) /, '') || 'Airlock inbox';
  }

  /** Shows the count of waiting decisions in the tab's title. */
  count(total: number): void {
    this.doc.title = titleWith(total, this.base);
  }

  /** Puts the title back as it was. */
  reset(): void {
    this.doc.title = this.base;
  }

  /** True when the browser can notify and this person was not asked yet. */
  canAsk(): boolean {
    return (
      typeof Notification !== 'undefined' &&
      Notification.permission === 'default' &&
      localStorage.getItem(ASKED_KEY) === null
    );
  }

  /** Asks once for desktop notifications; call it from a click (a user gesture). */
  async ask(): Promise<NotificationPermission | 'unsupported'> {
    if (typeof Notification === 'undefined') return 'unsupported';
    localStorage.setItem(ASKED_KEY, String(Date.now()));
    return Notification.requestPermission();
  }

  /** A desktop notification for new arrivals, when allowed and the tab is not in view. */
  notify(count: number, summary: string): void {
    if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
    if (this.doc.visibilityState === 'visible' && this.doc.hasFocus()) return;
    const title = count === 1 ? 'A call waits for you' : `${count} calls wait for you`;
    new Notification(title, { body: summary, tag: 'airlock-inbox' });
  }
}
