import type { Decision } from '@airlock/sdk';
import { h } from './dom.js';
import { decisionKey } from './render.js';
import { type Words, wordsNodes, wordsText } from './words.js';

/** How many "approved by you" lines stay on the page. */
const KEPT = 10;

/**
 * The short lines that say what this page just did ("Approved by you;
 * running."), each with a link to the run's story; the newest first, the
 * last {@link KEPT} kept.
 */
export class AfterLines {
  /** What a card's verb did, said once (the lines are not a live region: a bulk verb has its own summary). */
  private readonly said = h('span', { class: 'announce', role: 'status' });
  /** The element holding the lines. */
  readonly element = h('div', { class: 'afters' }, this.said);

  /**
   * Adds a line about a decision this page made; `say` has a screen reader
   * say it too (a card's verb, whose card goes away with its own message).
   */
  add(decision: Decision, done: Words, say = false): void {
    if (say) {
      // Emptied first: the same words for the next call are said again.
      this.said.textContent = '';
      this.said.append(wordsText(done));
    }
    const line = h(
      'p',
      { class: 'after', 'data-after': decisionKey(decision) },
      ...wordsNodes(done),
      ' ',
      h('a', { href: `#/runs/${encodeURIComponent(decision.run_id)}` }, 'See the run'),
      ` (${decision.run_id}, task ${decision.task_key}).`,
    );
    this.element.prepend(line);
    const lines = this.element.querySelectorAll('.after');
    for (let i = KEPT; i < lines.length; i += 1) lines[i]?.remove();
  }
}
