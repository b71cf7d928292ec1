import type { Decision } from '@airlock/sdk';
import { h } from './dom.js';
import { type CardActions, decisionCard } from './render.js';

/** What a key asks of the open decision. */
export type DetailKey = 'approve' | 'deny' | 'edit';

/** The pane beside the list where the open decision reads in full, with its buttons. */
export class DetailPane {
  /** The pane's element. */
  readonly element = h(
    'aside',
    { class: 'detail', 'aria-label': 'open decision' },
    h('p', { class: 'detail-empty' }, 'Pick a decision to read it here (j/k, ? for keys).'),
  );

  constructor(private readonly actions: CardActions) {}

  /** Shows a decision's card. */
  show(decision: Decision): void {
    this.element.replaceChildren(decisionCard(decision, this.actions));
  }

  /** Shows that the open decision is being read. */
  reading(): void {
    this.element.replaceChildren(h('p', { class: 'detail-empty' }, 'Reading this call…'));
  }

  /** Shows that nothing is open. */
  clear(): void {
    this.element.replaceChildren(h('p', { class: 'detail-empty' }, 'Nothing is open.'));
  }

  /**
   * Does what a key asks of the open card: `a` approves, `d` puts the cursor
   * in the deny reason, `e` opens the input editor (never closes it) with the
   * cursor in it.
   */
  key(action: DetailKey): void {
    const card = this.element.querySelector('article');
    if (!card) return;
    if (action === 'deny') {
      (card.querySelector('input[name="reason"]') as HTMLInputElement | null)?.focus();
      return;
    }
    const button = card.querySelector(`[data-action="${action}"]`) as HTMLButtonElement | null;
    if (action === 'edit' && button?.getAttribute('aria-expanded') === 'true') {
      (card.querySelector('textarea[name="tool-input"]') as HTMLElement | null)?.focus();
    } else button?.click();
  }
}
