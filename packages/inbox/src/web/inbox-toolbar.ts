import type { SocketStatus } from '@airlock/sdk';
import { Announcer } from './announcer.js';
import { h } from './dom.js';
import type { Order } from './order.js';

/** What the toolbar's controls ask of the inbox. */
export interface ToolbarEvents {
  /** The person picked another order. */
  order(order: Order): void;
  /** The filter text changed. */
  filter(text: string): void;
  /** The person asked for desktop notifications. */
  askNotify(): Promise<unknown>;
  /** The "Keys" button was pressed. */
  toggleHelp(): void;
}

/**
 * The inbox's toolbar: the count of waiting decisions, the feed's state,
 * the order, the filter, the desktop-notification button and the keys.
 */
export class InboxToolbar {
  /** The count as shown; a screen reader hears it through the announcer, at most every 10 s. */
  private readonly count = h('span', { class: 'count' }, '');
  private readonly announcer = new Announcer();
  private readonly status = h(
    'span',
    { class: 'status', 'data-status': 'connecting' },
    'connecting',
  );
  private readonly sort = h(
    'select',
    { name: 'order', 'aria-label': 'Sort' },
    h('option', { value: 'newest' }, 'Newest first'),
    h('option', { value: 'oldest' }, 'Oldest first'),
  );
  private readonly filterInput = h('input', {
    type: 'search',
    name: 'filter',
    'aria-label': 'Filter the list',
    placeholder: 'Filter (/)',
  });
  private readonly notifyButton: HTMLButtonElement;
  /** The toolbar's element. */
  readonly element: HTMLElement;

  constructor(events: ToolbarEvents) {
    this.sort.addEventListener('change', () => events.order(this.sort.value as Order));
    this.filterInput.addEventListener('input', () => events.filter(this.filterInput.value));
    this.notifyButton = h(
      'button',
      {
        type: 'button',
        class: 'notify',
        // Shown by offerNotifications once the page knows it may ask.
        hidden: true,
        onclick: () =>
          void events.askNotify().then(() => {
            this.notifyButton.hidden = true;
          }),
      },
      'Desktop notifications',
    );
    this.element = h(
      'div',
      { class: 'toolbar' },
      this.count,
      this.announcer.element,
      h('span', {}, 'Feed: ', this.status),
      this.sort,
      this.filterInput,
      this.notifyButton,
      h(
        'button',
        { type: 'button', class: 'keys', onclick: () => events.toggleHelp() },
        'Keys (?)',
      ),
    );
  }

  /** Shows the button that asks for desktop notifications, when the person may still be asked. */
  offerNotifications(canAsk: boolean): void {
    this.notifyButton.hidden = !canAsk;
  }

  /** The filter's text. */
  get filter(): string {
    return this.filterInput.value;
  }

  /** Puts the cursor in the filter box. */
  focusFilter(): void {
    this.filterInput.focus();
  }

  /** Shows an order chosen by the page rather than the person. */
  showOrder(order: Order): void {
    this.sort.value = order;
  }

  /** Shows the feed's state. */
  showStatus(status: SocketStatus): void {
    const text = status === 'open' ? 'live' : status;
    this.status.textContent = text;
    this.status.dataset.status = text;
  }

  /** Shows a failure where the feed's state is, as a failure (until the feed's state changes). */
  showError(message: string): void {
    this.status.textContent = `error: ${message}`;
    this.status.dataset.status = 'error';
  }

  /** Shows the count line. */
  showCount(text: string): void {
    this.count.textContent = text;
    this.announcer.say(text);
  }
}
