import { h } from './dom.js';

/**
 * The "N new" button: it counts arrivals the person cannot see (off screen,
 * or past the loaded part of the list) until they look.
 */
export class NewMarker {
  private unseen = 0;
  /** The button; a click calls `show` after clearing the count. */
  readonly element: HTMLButtonElement;

  constructor(show: () => void) {
    this.element = h('button', {
      type: 'button',
      class: 'new-marker',
      hidden: true,
      onclick: () => {
        this.clear();
        show();
      },
    });
  }

  /** True while some arrival is still unseen. */
  get pending(): boolean {
    return this.unseen > 0;
  }

  /** Counts one unseen arrival; `atEnd` when it landed past what the oldest-first list loaded. */
  count(atEnd: boolean): void {
    this.unseen += 1;
    this.element.textContent = atEnd
      ? `${this.unseen} new at the end: sort newest first`
      : `${this.unseen} new ↑`;
    this.element.hidden = false;
  }

  /** Forgets the unseen arrivals and hides the button. */
  clear(): void {
    this.unseen = 0;
    this.element.hidden = true;
  }
}
