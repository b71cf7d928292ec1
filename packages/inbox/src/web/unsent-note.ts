import { h } from './dom.js';

/**
 * What a person was typing into a card that went away under them (its call
 * was decided elsewhere, or stopped waiting): kept in a box of its own at the
 * top of the detail pane, with the cursor in it, so the rest of what they
 * type lands there too and never runs as the inbox's keys (`a` approves).
 * Nothing in it is sent; Dismiss takes it away.
 */
export class UnsentNote {
  private readonly said = h('p', { class: 'unsent-said', role: 'alert' });
  private readonly text = h('textarea', {
    name: 'unsent',
    class: 'unsent-text',
    rows: 2,
    spellcheck: 'false',
    'aria-label': 'what you typed, not sent',
  });
  readonly element = h(
    'section',
    { class: 'unsent', 'aria-label': 'text not sent', hidden: true },
    this.said,
    this.text,
    h(
      'button',
      { type: 'button', 'data-action': 'dismiss-unsent', onclick: () => this.dismiss() },
      'Dismiss',
    ),
  );

  /** @param dismissed where the focus goes once the person dismisses the note. */
  constructor(private readonly dismissed: () => void) {}

  /** Keeps what was typed into the card named `call` (after what it kept before), the cursor after it. */
  keep(call: string, typed: string): void {
    this.said.textContent = `Nothing you typed was sent: this call stopped waiting while you typed (decided elsewhere, or expired): ${call}. What you typed is kept here.`;
    const before = this.element.hidden ? '' : this.text.value;
    this.text.value = before && typed ? `${before}\n${typed}` : before || typed;
    this.element.hidden = false;
    this.text.focus();
    this.text.setSelectionRange(this.text.value.length, this.text.value.length);
  }

  private dismiss(): void {
    this.element.hidden = true;
    this.text.value = '';
    this.dismissed();
  }
}
